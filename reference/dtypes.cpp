// placeholder translation unit (replaced in this commit series)
