#ifndef OPENCOREDATA_CMEMORYHINTS_H
#define OPENCOREDATA_CMEMORYHINTS_H

#include <stdint.h>

/// Asks the processor to bring the cache line at `address` into its caches ahead of a read. A hint only: it never
/// faults, whatever the address. Swift has no spelling for it; this inline function compiles to one instruction.
static inline void ocd_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

/// An address on the current thread's real stack, at the depth of the caller: the frame address of this function.
/// Swift can only take the address of a local variable, and AddressSanitizer (detecting use after return) moves such
/// locals to frames it allocates on the heap, so their address says nothing about how much stack is left.
static inline uintptr_t ocd_stack_position(void) {
    return (uintptr_t)__builtin_frame_address(0);
}

#endif
