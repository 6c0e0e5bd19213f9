"""`make bench`: synthetic large session trees and throughput / memory measurements (issue 7)."""
