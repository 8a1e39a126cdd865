"""Normalisation by hand: batch norm and layer norm, exact."""
