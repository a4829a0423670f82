VALUE = 1 / 0
