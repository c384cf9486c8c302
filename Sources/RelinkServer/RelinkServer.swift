// The RelinkServer module; its contents arrive with the issues that need them (see docs/ARCHITECTURE.md).
