"""Tools for developing agent-evidence, not part of any command: `make demo` (`demo`),
`make schemas` (`schemas`), `make bench` (`bench`)."""
