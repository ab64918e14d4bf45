"""What a call leaves behind: every frame both ways, the units' heard truth, the outcome."""
