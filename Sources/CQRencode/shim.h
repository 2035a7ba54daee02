#ifndef HOUSECTL_CQRENCODE_SHIM_H
#define HOUSECTL_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
