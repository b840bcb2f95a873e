''
  hello
  world
''