"""Files written by evaluation harnesses (lm-eval, lighteval, OpenCompass, Inspect AI)."""
