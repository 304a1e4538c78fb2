"""Deterministic generated people for seed data: names and emails from a seeded RNG.

Names are drawn from short lists of common given names and surnames, so every build of a template
gives the same people. Places never come from here: they come from real data.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

__all__ = ["Person", "people"]

GIVEN = (
    "Amelia Olivia Noah Liam Mateo Sofia Aisha Yuki Hiroshi Chen Wei Priya Arjun Fatima Omar "
    "Lucas Emma Mia Ethan Isabella James Lina Jonas Elena Marco Giulia Sven Ingrid Tomas Ana "
    "Diego Camila Kwame Amara Ravi Meera Leon Clara Felix Nora Ibrahim Zainab Daniel Grace "
    "Samuel Hannah Victor Chloe Mohammed Layla Kenji Sakura Mateus Beatriz Oscar Freya"
).split()
SURNAME = (
    "Smith Johnson Garcia Martinez Chen Wang Patel Shah Kim Park Nguyen Tran Muller Schmidt "
    "Rossi Bianchi Dubois Martin Silva Santos Kowalski Nowak Jensen Larsen Okafor Mensah Ahmed "
    "Hassan Tanaka Sato Ivanova Petrov Cohen Levi Murphy Kelly Brown Wilson Lopez Gonzalez "
    "Fernandez Costa Andersson Nielsen Yilmaz Demir Haddad Kaur Singh Ito Novak Horvat"
).split()


@dataclass(frozen=True)
class Person:
    given: str
    surname: str
    email: str

    @property
    def name(self) -> str:
        return f"{self.given} {self.surname}"


def people(count: int, *, seed: int, domain: str) -> list[Person]:
    """``count`` distinct people with emails at ``domain``, the same list for the same seed."""
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[Person] = []
    while len(out) < count:
        given, surname = rng.choice(GIVEN), rng.choice(SURNAME)
        handle = f"{given}.{surname}".lower()
        if handle in seen:
            handle = f"{handle}{len(out)}"
        seen.add(handle)
        out.append(Person(given, surname, f"{handle}@{domain}"))
    return out
