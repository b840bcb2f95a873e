"line1
line2"