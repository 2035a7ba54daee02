#ifndef HOUSECTL_CMOSQUITTO_SHIM_H
#define HOUSECTL_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#endif
