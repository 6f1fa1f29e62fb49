"""What every product's output shares: the escapers, the format registry, the one-line cut and the writer."""
