// libsystemc.so references sc_main; libFuzzer owns main() in the fuzz executables.
extern "C" int sc_main(int, char*[]) { return 0; }
