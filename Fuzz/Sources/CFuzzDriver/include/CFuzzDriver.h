#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (in libclang_rt.fuzzer, linked by -sanitize=fuzzer): runs the fuzzing loop with `callback`
/// as the target, taking libFuzzer's command-line flags from argc/argv.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

/// Calls LLVMFuzzerRunDriver with the target's LLVMFuzzerTestOneInput.
int opencoredata_fuzz_main(int argc, char **argv);
#endif
