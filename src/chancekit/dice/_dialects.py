"""The names of the dice-notation dialects (private): their one home, light enough that
the command line lists them (``--dialect`` choices, every ``--help``) without loading the
dice engine.

>>> DIALECTS
('avrae', 'roll20', 'foundry')
"""

#: the dialects of dice notation (docs/notation.md): ``avrae`` (Avrae's d20, the default),
#: ``roll20`` (Roll20's dice reference; rpg-dice-roller where Roll20 is silent),
#: ``foundry`` (Foundry VTT's dice modifiers)
DIALECTS = ("avrae", "roll20", "foundry")
