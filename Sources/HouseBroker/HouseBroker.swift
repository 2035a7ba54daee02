// HouseBroker: see docs/ARCHITECTURE.md. Filled in by its own issue.
