// Debian's libzstd (package libzstd-dev, installed by scripts/bootstrap.sh): compression of stored attributes, and
// the training of the dictionaries they are compressed with (zdict.h).
#include <zstd.h>
#include <zdict.h>
