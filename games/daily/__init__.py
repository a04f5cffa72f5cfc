"""The daily challenge (RULES.md, The daily challenge; docs/DAILY.md): one no-guess board per
level and UTC day for everyone, one attempt each, nothing shown of anyone's board before the
day ends. Between the game room and the races: it imports play and below, never races."""
