/* SwiftPM resolves a system library's header through the module map next to
 * it; this shim hands it on to the installed p2b.h. */
#include <p2b.h>
