// Replaced by this module's tests.
