#ifndef HOUSECTL_CMOSQUITTO_SHIM_H
#define HOUSECTL_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <errno.h>
#endif
