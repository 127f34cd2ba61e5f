#ifndef OPENCOREDATA_CMEMORYHINTS_H
#define OPENCOREDATA_CMEMORYHINTS_H

/// Asks the processor to bring the cache line at `address` into its caches ahead of a read. A hint only: it never
/// faults, whatever the address. Swift has no spelling for it; this inline function compiles to one instruction.
static inline void ocd_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
