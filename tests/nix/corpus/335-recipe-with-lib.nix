{ lib, pkgs }:
with lib; {
  platforms = platforms.linux;
  maintainers = with maintainers; [ someone ];
  flags = optionals (pkgs.stdenv.isx86_64) [ "-mavx2" ];
}
