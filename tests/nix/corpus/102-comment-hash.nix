# comment
1 # trailing