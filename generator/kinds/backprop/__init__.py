"""One step of learning by hand: a two-layer network forward, its gradients backward, its weights updated."""
