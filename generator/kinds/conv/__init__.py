"""A convolution layer: kernels over an image, ReLU and a max-pool, worked by hand."""
