// Lets a library whose sources are still to come be a valid static library.
