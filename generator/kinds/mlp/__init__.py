"""The multi-layer perceptron: layers of [W | b]·[H ; 1] and ReLU, worked by hand."""
