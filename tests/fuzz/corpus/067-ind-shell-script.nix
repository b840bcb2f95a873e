x: ''
  export A="${x}"
  for d in a b; do
    echo $d
  done
  echo ''${HOME}
''