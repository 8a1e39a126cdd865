"""The edges: HTML and PDF, files written atomically, batches, job processes, gradebooks."""
