-- Fortress Stalingrad: the sequence of play (4.2). Skeleton while the rule areas are written.
umpire.sequence {
  turns = 12,
  steps = {
    { id = "initial_supply", name = "Initial Supply Phase", rule = "4.2" },
    { id = "air", name = "Air Power Phase", rule = "8.2" },
    { id = "player", name = "Player Turn", sides = { "Soviet", "German" }, steps = {
      { id = "reinforcement", name = "Reinforcement and Replacement Phase", rule = "9.1" },
      { id = "movement", name = "Movement Phase", rule = "10.1" },
      { id = "assault", name = "Prepared Assault Phase", rule = "11.1" },
    } },
    { id = "terminal_supply", name = "Terminal Supply Phase", rule = "4.2" },
  },
}
