let
 a = 1; inherit (y) b; in 1