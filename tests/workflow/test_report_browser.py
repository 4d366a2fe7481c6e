"""The HTML report of the tiny workflow, rendered in headless Chromium (issue 13).

A copy of the finished tiny run (every method's results) gets ``snakemake --report report.html``;
the page is then driven in Debian's Chromium through Selenium the way a reader uses it: a category in
the menu, a subcategory where there are several, a result's view button (an ``<img>`` for a
figure, an ``<iframe>`` for an HTML table page) and its info button, whose panel holds the
caption. Each view must be on screen; screenshots of the landing page and of every result
view are kept in ``test-artifacts/report/``. ``make test-report`` installs Chromium and runs
this file; the default suite leaves it out (``-m browser``).

The selectors follow Snakemake 9's report template (report/html_reporter/template/components):
menu and subcategory entries are ``nav ul > li > a > span`` with the name, results are rows of
the ``nav table`` whose first cell is the path, and the row's last cell holds the view button
then the info button. The report's own ``categories`` and ``results`` globals say what to visit.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from pathlib import Path

import pytest

from workflow_helpers import REPO, snakemake

pytestmark = pytest.mark.browser

# The report's expected items: category -> results, by the path the report lists them under.
# A result the report holds beyond these (in any category) must pass the same checks; an HTML
# page is checked as an iframe holding a table, a figure as a loaded image.
EXPECTED = {
    "CAIRO": [
        "results/cairo/bias/gender.png",
        "results/cairo/gender_curve.png",
        "results/cairo/gender_bias.png",
        "results/cairo/gender_paraphrasers.png",
        "results/cairo/gender_tables.html",
    ],
    "FairPair": [
        "results/fairpair/summary.png",
        "results/fairpair/a-t1.0_ngrams.png",
        "results/fairpair/b-t1.0_ngrams.png",
        "results/fairpair/summary.html",
    ],
    "FPR gaps": [
        "results/fpr/templates_race_gaps.png",
        "results/fpr/occupations_race_gaps.png",
        "results/fpr/gap_spans.png",
        "results/fpr/markedness.png",
        "results/fpr/summary.html",
    ],
    "Power": ["results/power/cairo.html", "results/power/fairpair.html", "results/power/fpr.html"],
}
ARTIFACTS = REPO / "test-artifacts" / "report"
WINDOW = (1400, 1000)
TIMEOUT = 30
INSTALL = "`make test-report` installs it (as root: apt-get install chromium chromium-driver)"


@pytest.fixture(scope="module")
def chromium() -> tuple[str, str]:
    """Debian's Chromium and its driver; without them the run fails and says how to install them."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = "/usr/bin/chromedriver" if os.access("/usr/bin/chromedriver", os.X_OK) else shutil.which("chromedriver")
    if not browser or not driver:
        pytest.fail(
            f"headless Chromium not found (chromium: {browser}, chromedriver: {driver}); {INSTALL}", pytrace=False
        )
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.fail("selenium is not installed; `pip install -e '.[test]'` (make test-report does)", pytrace=False)
    return browser, driver


@pytest.fixture(scope="module")
def report(chromium, finished_workflow, tmp_path_factory) -> Path:
    """report.html of a copy of the finished tiny run of all three methods (tests/conftest.py), made with the
    README's command; Chromium is looked for first, so a failure comes fast. In the same pytest run as the
    workflow suite (make test-end-to-end, as .ci/run runs it), the run is the one that suite built."""
    source, _ = finished_workflow
    workdir = tmp_path_factory.mktemp("report") / "run"
    shutil.copytree(source, workdir, symlinks=True)
    snakemake(workdir, "--report", "report.html")
    return workdir / "report.html"


@pytest.fixture(scope="module")
def browser(chromium):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = chromium
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    # --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
    ):
        options.add_argument(argument)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("SE_OFFLINE", "true")  # Selenium Manager must not download a browser or driver
        driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def artifacts() -> Path:
    """test-artifacts/report/, emptied, so that it holds this run's screenshots only."""
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


def test_landing_page_lists_every_category(browser, report, artifacts):
    categories = open_report(browser, report)
    browser.save_screenshot(str(artifacts / "landing.png"))
    assert set(EXPECTED) <= set(categories), f"categories in the report: {sorted(categories)}"
    page = browser.page_source
    assert "What was run" in page and "a-t1.0" in page and "profanity" in page, "the front page says what was run"
    for words in (
        "CAIRO",
        "FairPair",
        "Group FPR gaps",
        "Zayed et al., 2024",
        "Dwivedi-Yu et al., 2024",
        "Tian et al., 2023",
        "The data",
        "the files in data/datasets/BOLD",
        "release v1.1",
        "every prompt",
    ):
        assert words in page, f"the front page names {words!r}: the data, the methods run and their papers"
    assert "Not run" not in page and not re.search(r"paper 00\d", page), "every paper cited by authors and year"
    assert "System Message" not in page, "the front page is valid reStructuredText"
    for category in categories:
        assert_visible(browser, menu_entry(browser, menu_label(categories, category)), f"menu entry {category!r}")


@pytest.mark.parametrize("category", sorted(EXPECTED))
def test_every_result_is_listed_shown_and_captioned(browser, report, artifacts, category):
    categories = open_report(browser, report)
    assert category in categories, f"no {category!r} in the report's menu: {sorted(categories)}"
    listed = {path for paths in categories[category].values() for path in paths}
    missing = sorted(set(EXPECTED[category]) - listed)
    assert not missing, f"{category}: missing {missing}; the report holds {sorted(listed)}"
    check_category(browser, report, artifacts, categories, category)


def test_results_in_other_categories_are_shown_and_captioned(browser, report, artifacts):
    """A category the report holds beyond EXPECTED gets the same checks (usually there is none)."""
    categories = open_report(browser, report)
    for category in sorted(set(categories) - set(EXPECTED)):
        check_category(browser, report, artifacts, categories, category)


# -- driving the report ---------------------------------------------------------------------------


def wait(driver):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, TIMEOUT)


def open_report(driver, report: Path) -> dict[str, dict[str, list[str]]]:
    """Load the page afresh; the report's category -> subcategory -> result paths."""
    driver.get(report.as_uri())
    wait(driver).until(
        lambda d: d.execute_script("return document.querySelector('#app nav ul > li > a') !== null"),
        message="the report's menu never rendered",
    )
    return driver.execute_script("return categories")


def menu_label(categories: dict, category: str) -> str:
    """The menu shows a report's only category as "Results" (template menu.js)."""
    return "Results" if len(categories) == 1 else category


def menu_entry(driver, label: str):
    """A menu or category-list entry by its name."""
    from selenium.webdriver.common.by import By

    xpath = f"//nav//ul/li/a[span[normalize-space()={xpath_string(label)}]]"
    return wait(driver).until(lambda d: d.find_element(By.XPATH, xpath), message=f"no menu entry {label!r}")


def click(driver, find, what: str) -> None:
    """Click ``find(driver)`` as a reader would: once it has stood still for one poll and nothing
    covers its centre. The menu's entries move for a moment after the report renders (they carry
    ``transition-all``), and an entry clicked as soon as it exists can have its neighbour under the
    pointer: CI once clicked the entry beside "Power" (ElementClickInterceptedException)."""
    seen = {}

    def settled(d):
        element = find(d)
        where = d.execute_script(
            "const e = arguments[0], r = e.getBoundingClientRect();"
            "const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
            "return [r.left, r.top, r.width, r.height, hit !== null && e.contains(hit)];",
            element,
        )
        still = where == seen.get("where") and where[4]
        seen["where"] = where
        return element if still else False

    wait(driver).until(settled, message=f"{what} never stood still with nothing over it").click()


def check_category(driver, report: Path, artifacts: Path, categories: dict, category: str) -> None:
    for subcategory, paths in sorted(categories[category].items()):
        for path in paths:
            open_report(driver, report)
            label = menu_label(categories, category)
            click(driver, lambda d, label=label: menu_entry(d, label), f"menu entry {label!r}")
            if len(categories[category]) > 1:  # one subcategory opens straight away (template app.js)
                click(
                    driver,
                    lambda d, subcategory=subcategory: menu_entry(d, subcategory),
                    f"subcategory {subcategory!r}",
                )
            check_result(driver, artifacts, path)


def check_result(driver, artifacts: Path, path: str) -> None:
    """The result's row, its view on screen and its caption; a screenshot of the view."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By

    row_xpath = f"//nav//table/tbody/tr[td[1][normalize-space()={xpath_string(path)}]]"
    # The list renders after the click, later on a busy machine: wait for the row, then say what was listed.
    with contextlib.suppress(TimeoutException):
        wait(driver).until(lambda d: d.find_elements(By.XPATH, row_xpath))
    rows = driver.find_elements(By.XPATH, row_xpath)
    first_cells = driver.find_elements(By.XPATH, "//nav//table/tbody/tr/td[1]")
    listed = [cell.get_attribute("textContent") for cell in first_cells]
    assert rows, f"{path} is not listed by its file name; the list shows {listed}"
    buttons = "td:last-child [role=group] > a"  # the view button, then the info button
    click(
        driver,
        lambda d: d.find_element(By.XPATH, row_xpath).find_elements(By.CSS_SELECTOR, buttons)[0],
        f"{path}'s view button",
    )
    result = driver.execute_script("return results[arguments[0]]", path)
    if result["mime_type"].startswith("image/"):
        check_image(driver, path)
    elif result["mime_type"] == "text/html":
        check_html_page(driver, path)
    else:
        raise AssertionError(f"{path}: no in-page view for {result['mime_type']}")

    click(
        driver,
        lambda d: d.find_element(By.XPATH, row_xpath).find_elements(By.CSS_SELECTOR, buttons)[1],
        f"{path}'s info button",
    )
    caption = wait(driver).until(
        lambda d: d.find_element(By.XPATH, "//nav//li[normalize-space()='Description']/following-sibling::li[1]"),
        message=f"{path}: no caption (Description) in its info panel",
    )
    assert driver.find_elements(By.XPATH, f"//nav/ol/li[normalize-space()={xpath_string(path)}]"), (
        f"{path}: the info panel opened for another result"
    )
    assert_visible(driver, caption, f"{path}'s caption")
    assert caption.text.strip(), f"{path}: empty caption"
    driver.save_screenshot(str(artifacts / screenshot_name(path)))


def shown_element(driver, tag: str, path: str, ready: str, message: str):
    """The report's visible ``<tag>`` showing the result (its src is the data URI) once JS ``ready`` holds."""
    element = wait(driver).until(
        lambda d: d.execute_script(
            "const uri = results[arguments[0]].data_uri;"
            f"return Array.from(document.querySelectorAll('#app {tag}'))"
            f"  .find(e => e.getAttribute('src') === uri && ({ready})) || null;",
            path,
        ),
        message=message,
    )
    assert_visible(driver, element, path)
    return element


def check_image(driver, path: str) -> None:
    shown_element(
        driver,
        "img",
        path,
        "e.complete && e.naturalWidth > 0",
        f"{path}: its image never loaded (naturalWidth 0 or not shown)",
    )


def check_html_page(driver, path: str) -> None:
    frame = shown_element(driver, "iframe", path, "true", f"{path}: no iframe shows it")
    driver.switch_to.frame(frame)
    try:
        tables = wait(driver).until(
            lambda d: d.execute_script(
                "if (document.readyState !== 'complete') return 0;"
                "return Array.from(document.querySelectorAll('table')).filter(t => t.querySelector('tr td')).length;"
            ),
            message=f"{path}: the page holds no <table> with a data row",
        )
    finally:
        driver.switch_to.default_content()
    assert tables >= 1


def assert_visible(driver, element, what: str) -> None:
    """Displayed (CSS) and at least partly inside the window."""
    assert element.is_displayed(), f"{what} is hidden"
    on_screen = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0"
        "  && r.left < window.innerWidth && r.top < window.innerHeight;",
        element,
    )
    assert on_screen, f"{what} is outside the window"


def screenshot_name(path: str) -> str:
    """results/cairo/bias/gender.png -> cairo-bias-gender_png.png (the extension kept: a figure
    and an HTML page may share a stem)."""
    name = path.removeprefix("results/").replace("/", "-").replace(".", "_")
    return re.sub(r"[^\w.-]", "_", name) + ".png"


def xpath_string(text: str) -> str:
    """An XPath 1.0 literal for any text (concat() where it holds both kinds of quote)."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ', "\'", '.join(f"'{part}'" for part in text.split("'")) + ")"
