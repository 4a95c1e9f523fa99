// sc_main for SystemC test executables: libsystemc provides main(), which calls sc_main; we hand the
// command line to Catch2 so the SystemC tests are ordinary Catch2 test cases.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

int sc_main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
