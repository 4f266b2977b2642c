// Debian's libzstd (package libzstd-dev, installed by scripts/bootstrap.sh): compression of stored attributes.
#include <zstd.h>
