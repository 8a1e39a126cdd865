"""A graph convolution: each node gathers its neighbours' features, then a layer of weights and ReLU."""
