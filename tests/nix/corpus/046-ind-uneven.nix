''
    a
  b
      c
''