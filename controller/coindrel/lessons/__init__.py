"""Learn by playing: lessons as data files, checked against the engine, and
a pure runner that teaches on the physical board (or the virtual one)."""

from .explain import Scoring, Trace, explain, trace, wrap
from .loader import lesson_names, load_lesson, load_lessons, parse_lesson, step_position
from .model import OLED_WIDTH, Lesson, LessonError, LessonStep
from .runner import ACTIONS, BACK, REPLAY, SELECT, LessonRunner, Prompt

__all__ = [
    "ACTIONS",
    "BACK",
    "OLED_WIDTH",
    "REPLAY",
    "SELECT",
    "Lesson",
    "LessonError",
    "LessonRunner",
    "LessonStep",
    "Prompt",
    "Scoring",
    "Trace",
    "explain",
    "lesson_names",
    "load_lesson",
    "load_lessons",
    "parse_lesson",
    "step_position",
    "trace",
    "wrap",
]
