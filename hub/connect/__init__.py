"""`lineup connect`: hand the permission prompts and the progress of agents people run themselves to LineUp."""
