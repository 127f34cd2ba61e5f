#include "CFuzzDriver.h"

// SwiftPM on Linux links an executable with `--defsym main=<Module>_main`, so libFuzzer's own `main` is never used;
// each target's `<Module>_main` calls this, which hands control to libFuzzer's driver.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int opencoredata_fuzz_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
