// The module's one function is inline, in include/CMemoryHints.h; SwiftPM needs a source file for a C target.
#include "CMemoryHints.h"
