/* block */ 1 /* another
 multi-line */