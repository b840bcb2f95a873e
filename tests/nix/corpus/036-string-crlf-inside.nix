"a
b"