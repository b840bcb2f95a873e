''
  abc
