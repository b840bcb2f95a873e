x: ''
  a ${x} b
''