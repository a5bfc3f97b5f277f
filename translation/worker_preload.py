"""What the PDF workers' forkserver loads once, before it forks them (``translation.worker``).

A worker is forked for every job, and a cache filled in the worker dies with it. English's word
list (``translation.read.words.lexicon``, asked at every hyphen that ends a line) took 0.2 s to load
in every job, more on a busy machine; loaded here, every child has it from the fork. So has the
digest of the reading code that keys the readings kept (``translation.reading_cache``). Import
this module only as the forkserver's preload: importing it is what loads the list.
"""

from __future__ import annotations

from translation.read.words.lexicon import is_word
from translation.reading_cache import code_version

# English is the source language of nearly every paper (and the list for languages without one).
is_word("the")
# The digest of the reading code that keys the readings kept (its files read once, not a job).
code_version()
