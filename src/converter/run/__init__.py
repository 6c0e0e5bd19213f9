"""What each command does, composed from the stages: read a tree (`pipeline`), convert and
re-derive (`conversion`), verify a bundle (`verification`), gather bundles into one workload
(`workload`), the inspect report (`inspection`), scan a projects folder (`scan`), and the closed
models of what inspect and scan print (`outputs`). The CLI parses options and prints; the stages
below know nothing of commands."""
