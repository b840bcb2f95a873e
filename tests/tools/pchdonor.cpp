// The one source of the targets that build the test suites' shared precompiled headers
// (tests/CMakeLists.txt): a target needs a source, and the header is all this one compiles.
