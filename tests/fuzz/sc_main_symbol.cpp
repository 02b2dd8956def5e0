// libsystemc.so references sc_main, so every program that links it must define one; in the fuzz
// executables libFuzzer owns main() and SystemC's main never runs, so this one is never called.
extern "C" int sc_main(int, char*[]) { return 0; }
