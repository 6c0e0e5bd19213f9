"""What each command does, composed from the stages: read a tree (`pipeline`), convert and
re-derive (`conversion`), gather bundles into one workload (`workload`), the inspect report
(`inspection`), scan a projects folder (`scan`). The CLI parses options and prints; the stages
below know nothing of commands."""
