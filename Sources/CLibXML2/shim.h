#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, and then libxml/encoding.h includes ICU's headers, whose types (UErrorCode, …)
// clash with the private copy of ICU inside Foundation (_FoundationICU): "'UErrorCode' has different definitions in
// different modules". Only the ICU converter fields of xmlCharEncodingHandler depend on it, and Swift never touches
// that struct's fields (it is used through pointers only), so hide ICU from the headers.
#undef LIBXML_ICU_ENABLED
#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlreader.h>
#include <libxml/xmlerror.h>
