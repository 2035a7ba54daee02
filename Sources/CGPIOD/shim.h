#ifndef HOUSECTL_CGPIOD_SHIM_H
#define HOUSECTL_CGPIOD_SHIM_H
#include <gpiod.h>
#include <errno.h>
#endif
