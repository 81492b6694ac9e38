"""The words of the demo sample: sites, articles and files, as plain data.

:mod:`trawl.demo` turns this into WARC, TREC and desktop files. Everything here is prose written
for the sample (general knowledge, in nine languages), so that language identification, text
statistics and near-duplicate detection have real text to work on. Technical treatment (which
page is gzipped, chunked or mis-declared) is decided in :mod:`trawl.demo`, not here.
"""

# ruff: noqa: RUF001
# (RUF001 flags letters that look like Latin ones; here they are Cyrillic, Greek and CJK prose on purpose.)

from __future__ import annotations

from dataclasses import dataclass, replace

__all__ = [
    "BROKEN_PAGES",
    "BROKEN_TREC",
    "CROSS_LINKS",
    "CSV_ROWS",
    "DOCX_PARAGRAPHS",
    "DOCX_TITLE",
    "FILE_TEXTS",
    "NEAR_DUPLICATES",
    "NOT_FOUND",
    "PDF_LINES",
    "PDF_TITLE",
    "SITES",
    "TREC_PAGES",
    "Article",
    "Site",
    "TrecPage",
]


@dataclass(frozen=True, slots=True)
class Article:
    """One article page: its path on its site, the section it is listed under, and its text."""

    path: str
    section: str
    title: str
    description: str
    published: str  # ISO date
    paragraphs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Site:
    """One site (or one language section of a site) with the boilerplate all its pages share."""

    base: str  # scheme and host: "http://news.example.org"
    home: str  # path of the home page: "/" or "/es/"
    lang: str
    name: str
    tagline: str
    intro: str
    sections: tuple[tuple[str, str], ...]  # (id, label), in navigation order
    related_label: str
    partners_label: str
    footer: str
    articles: tuple[Article, ...]
    archive_label: str = ""
    archive: tuple[tuple[str, str], ...] = ()  # (absolute URL, anchor text): old links kept on the home page

    @property
    def home_url(self) -> str:
        return self.base + self.home


@dataclass(frozen=True, slots=True)
class TrecPage:
    """One page of the 1999 university web in the TREC file."""

    path: str
    lang: str
    title: str
    paragraphs: tuple[str, ...]


# --- news.example.org (English) -------------------------------------------------------------------

_COFFEE = Article(
    "/world/coffee-harvest.html",
    "world",
    "Coffee Growers Adapt to a Warming Climate",
    "Higher temperatures are pushing coffee farms uphill, and growers are testing new varieties and "
    "shade trees.",
    "2024-02-27",
    (
        "Coffee is a demanding crop. The arabica plant, which produces most of the world's high-quality "
        "beans, grows best in a narrow band of temperatures between about eighteen and twenty-two degrees "
        "Celsius. Warmer conditions speed up the ripening of the cherries, which tends to reduce their "
        "flavour, and they favour diseases such as coffee leaf rust.",
        "In many producing regions, from Central America to East Africa, farmers have responded by "
        "planting at higher altitudes, where the air is cooler. This option has limits, because mountains "
        "narrow towards their peaks and the land available shrinks with every hundred metres of height. "
        "In some places the higher slopes are also covered by forests that many people want to protect.",
        "Other growers are bringing back shade trees, which were once common on coffee farms. A canopy of "
        "taller trees lowers the temperature around the coffee bushes by several degrees, keeps the soil "
        "moist and shelters birds that eat harmful insects. Researchers are also breeding hybrids that "
        "combine the flavour of arabica with the hardiness of robusta, a related species that tolerates "
        "heat better.",
        "None of these measures is a complete answer on its own. Most experts expect the map of coffee "
        "growing to keep shifting over the coming decades, and they advise farmers to combine several "
        "strategies rather than rely on a single one.",
    ),
)

_NEWS = Site(
    base="http://news.example.org",
    home="/",
    lang="en",
    name="The Northbridge Gazette",
    tagline="Science, the world and culture, explained",
    intro=(
        "The Northbridge Gazette reports on science, the world and culture for curious readers in the "
        "Example Valley and beyond. Our writers explain how things work, from the tides to the printing "
        "press, and we link to partner publications in other languages whenever they cover a story "
        "better than we could."
    ),
    sections=(("science", "Science"), ("world", "World"), ("culture", "Culture")),
    related_label="Related articles",
    partners_label="Our partner sites",
    footer="© 2024 The Northbridge Gazette, 1 Harbour Street, Northbridge. All rights reserved.",
    archive_label="From the archive",
    archive=(
        ("http://news.example.org/2019/lighthouse-special.html", "Our 2019 lighthouse special"),
        ("http://blog.exemple.fr/2019/phares", "Lighthouses of the French coast (in French)"),
    ),
    articles=(
        Article(
            "/science/tides.html",
            "science",
            "Why the Sea Rises and Falls Twice a Day",
            "The Moon and the Sun pull on the oceans, and the shape of each coast does the rest.",
            "2024-02-12",
            (
                "Anyone who spends a day on the shore notices that the water does not stay put. In most "
                "places the sea climbs the beach for about six hours, pauses, and then slides back for "
                "another six. The rhythm repeats roughly twice a day, but each high tide arrives a little "
                "later than the one before, by about fifty minutes per day. That delay is the first clue "
                "that the Moon, not the Sun, sets the pace.",
                "The Moon's gravity pulls hardest on the side of the Earth that faces it and weakest on the "
                "far side. The difference between those pulls stretches the oceans into two bulges, one "
                "under the Moon and one opposite it. As the Earth turns beneath these bulges, a given coast "
                "passes through both of them, which is why there are usually two high tides and two low "
                "tides in a little more than a day.",
                "The Sun adds its own, smaller tide. When Sun, Moon and Earth line up at new and full moon, "
                "the two effects add together and produce spring tides, with the highest highs and the "
                "lowest lows. When the Sun and Moon stand at right angles, at the quarter moons, they "
                "partly cancel and the range shrinks to a neap tide.",
                "Real coastlines complicate the tidy picture. Narrow bays and funnel-shaped estuaries can "
                "amplify the tide enormously, as in the Bay of Fundy in Canada, where the water can rise by "
                "more than fifteen metres. Enclosed seas such as the Mediterranean, by contrast, have tides "
                "of only a few tens of centimetres.",
            ),
        ),
        Article(
            "/science/honeybees.html",
            "science",
            "How Honeybees Choose a New Home",
            "When a colony swarms, a few hundred scouts hold a kind of debate, and the best site usually "
            "wins.",
            "2024-02-20",
            (
                "In late spring a crowded honeybee colony often divides. The old queen leaves with about "
                "half of the workers, and the swarm hangs from a branch while it decides where to live. It "
                "may stay there for a few hours or a few days, and during that time the real work is done "
                "by a few hundred experienced foragers acting as scouts.",
                "Each scout flies out to inspect possible cavities, such as hollow trees or gaps in walls. "
                "A good site is dry, sheltered, has a small entrance and offers a volume of roughly forty "
                "litres. When a scout returns, she advertises what she has found with a waggle dance on the "
                "surface of the swarm, and the length of the dance reflects how much she liked the site.",
                "Other scouts follow the dances, visit the advertised sites and dance for them in turn if "
                "they agree. Support for poor sites fades quickly, while support for good sites grows. Once "
                "enough scouts are gathered at one location, a quorum is reached and the whole swarm takes "
                "off, guided by scouts that streak through the cloud of bees towards the new home.",
                "Biologists who have studied this process describe it as a remarkably effective group "
                "decision. No single bee compares all the options, yet the colony usually picks the best "
                "one available.",
            ),
        ),
        Article(
            "/science/lightning.html",
            "science",
            "What Happens Inside a Lightning Strike",
            "A flash lasts a fraction of a second, but it heats the air to temperatures hotter than the "
            "surface of the Sun.",
            "2024-03-01",
            (
                "A thunderstorm is a giant machine for separating electric charge. Inside the cloud, ice "
                "crystals and small pellets of soft hail collide in strong updrafts, and the collisions "
                "leave the lighter crystals positively charged and the heavier pellets negatively charged. "
                "The updrafts carry the crystals to the top of the cloud, so the base of the storm becomes "
                "strongly negative.",
                "When the charge becomes large enough, a faint channel called a stepped leader creeps down "
                "from the cloud in a series of short jumps. As it nears the ground, objects below send up "
                "streamers of their own. When a streamer meets the leader, the circuit is complete and a "
                "powerful return stroke races back up the channel. That return stroke is the bright flash "
                "we see.",
                "The channel is only a few centimetres wide, but the current heats it to around thirty "
                "thousand degrees Celsius in a few millionths of a second. The air expands so violently "
                "that it creates a shock wave, which we hear as thunder. Because light travels much faster "
                "than sound, counting the seconds between flash and thunder and dividing by three gives a "
                "rough distance to the strike in kilometres.",
            ),
        ),
        _COFFEE,
        Article(
            "/world/night-trains.html",
            "world",
            "Night Trains Return to European Rails",
            "After decades of decline, sleeper services are coming back on routes across the continent.",
            "2024-01-30",
            (
                "For much of the twentieth century, sleeper trains were an ordinary way to cross Europe. "
                "Passengers boarded in the evening, slept in a compartment or a couchette, and woke up in "
                "another country. From the 1990s onwards, however, cheap flights and faster daytime trains "
                "took away many of their customers, and one route after another was closed.",
                "In recent years the trend has reversed. Several railway companies have reintroduced night "
                "services between major cities, and new private operators have joined them. Travellers "
                "cite the comfort of arriving rested in a city centre, as well as the lower carbon "
                "emissions compared with flying.",
                "Running a night train is nevertheless complicated. Each service must cross networks owned "
                "by different countries, with different rules, electrical systems and track fees, and the "
                "sleeping cars are expensive to build and maintain. Many routes therefore depend on "
                "cooperation between operators and on public support.",
            ),
        ),
        Article(
            "/world/clean-rivers.html",
            "world",
            "The Long Road to Clean Rivers",
            "Many European rivers that were once open sewers support fish again. It took decades of work.",
            "2024-02-05",
            (
                "In the middle of the twentieth century, many rivers in industrial regions were in a "
                "dreadful state. Factories and towns discharged untreated waste directly into the water, "
                "and in some stretches there was so little oxygen that hardly any fish could survive. The "
                "Thames in London was declared biologically dead in the 1950s.",
                "The recovery began with sewage treatment plants, which remove solids and break down "
                "organic matter before the water is returned to the river. Later, laws limited the "
                "discharge of industrial chemicals, and countries that shared a river began to coordinate "
                "their efforts. The Rhine, which flows through several countries, became an example of such "
                "cooperation after a serious chemical spill in 1986.",
                "Today salmon have returned to parts of the Rhine, and seals are regularly seen in the "
                "Thames estuary. The work is not finished, since runoff from farms, microplastics and heavy "
                "rainfall that overwhelms old sewers still pollute many rivers. Still, the last decades "
                "show that damaged rivers can recover when people decide to let them.",
            ),
        ),
        Article(
            "/culture/printing-press.html",
            "culture",
            "How the Printing Press Changed Europe",
            "Johannes Gutenberg's movable type made books cheaper and helped ideas travel faster than "
            "ever before.",
            "2024-01-18",
            (
                "Around 1450, in the German city of Mainz, the goldsmith Johannes Gutenberg developed a way "
                "of printing with movable metal type. Individual letters were cast in a hand mould from an "
                "alloy of lead, tin and antimony, arranged into lines and pages, inked and pressed onto "
                "paper with a screw press adapted from those used for wine and olive oil.",
                "His most famous work, a Latin Bible printed in the mid-1450s, showed that a printed book "
                "could be as beautiful as a manuscript. About 180 copies were made, and fewer than fifty "
                "survive today, some of them incomplete.",
                "The technique spread rapidly. By 1500, printing shops were operating in more than two "
                "hundred European towns, and millions of books had been produced. Prices fell, more people "
                "learned to read, and scholars could compare identical copies of a text instead of relying "
                "on hand-made copies that differed from one another.",
                "Historians link the press to many later changes, including the Reformation, the scientific "
                "revolution and the rise of newspapers. Whatever the exact weight of each factor, it is "
                "clear that printing changed how knowledge was stored and shared.",
            ),
        ),
        Article(
            "/culture/public-libraries.html",
            "culture",
            "The Quiet Revolution of Public Libraries",
            "Free libraries open to everyone are a surprisingly recent idea, and they are still changing.",
            "2024-02-15",
            (
                "For most of history, books were expensive and libraries belonged to monasteries, "
                "universities or wealthy collectors. The idea that a town should keep a collection of books "
                "that anyone could borrow for free took hold only in the nineteenth century. In Britain, "
                "the Public Libraries Act of 1850 allowed towns to raise local taxes for the purpose, and "
                "many cities in Europe and North America followed.",
                "Philanthropists played a large part in the spread of libraries. The industrialist Andrew "
                "Carnegie paid for more than two thousand library buildings in the English-speaking world, "
                "on condition that the local authorities paid for books and staff.",
                "Modern libraries lend much more than books. Many offer internet access, classes, study "
                "rooms and a warm, quiet place where nobody is expected to buy anything. Librarians often "
                "say that this last role, a public space open to all, is becoming one of the most "
                "important things they provide.",
            ),
        ),
        Article(
            "/culture/chess.html",
            "culture",
            "A Short History of Chess",
            "From an Indian war game to the world's most studied board game, chess has changed its rules "
            "several times.",
            "2024-02-22",
            (
                "The earliest known ancestor of chess is chaturanga, a game played in India around the "
                "sixth century. Its pieces represented the divisions of an army: infantry, cavalry, "
                "elephants and chariots. The game travelled to Persia, where it became known as shatranj, "
                "and after the Arab conquest of Persia it spread throughout the Islamic world and into "
                "Europe.",
                "Medieval chess was slower than the modern game. The piece that became the queen could move "
                "only one square diagonally, and the bishop could jump just two squares. In the late "
                "fifteenth century, players in southern Europe gave the queen and the bishop their "
                "long-range moves, and the faster game that resulted soon replaced the old one.",
                "The first official world championship match was played in 1886. In the twentieth century "
                "chess became a field of serious study, with a vast literature on openings and endgames. In "
                "1997 the computer Deep Blue defeated the world champion Garry Kasparov in a match, and "
                "today even programs running on a phone play far better than any human.",
            ),
        ),
    ),
)

# --- www.beispiel.de (German) ---------------------------------------------------------------------

_BEISPIEL = Site(
    base="http://www.beispiel.de",
    home="/",
    lang="de",
    name="Beispiel Rundschau",
    tagline="Wissen, Reisen und Kultur",
    intro=(
        "Die Beispiel Rundschau erklärt Wissenswertes aus Natur und Technik, stellt Reiseziele vor und "
        "erzählt Geschichten aus der Kulturgeschichte. Alle Artikel werden von unserer Redaktion "
        "geschrieben und regelmäßig überprüft. Hinweise und Korrekturen nehmen wir gern per Post entgegen."
    ),
    sections=(("wissen", "Wissen"), ("reise", "Reise"), ("kultur", "Kultur")),
    related_label="Mehr zum Thema",
    partners_label="Unsere Partnerseiten",
    footer="© 2024 Beispiel Rundschau · Musterstraße 1 · 12345 Beispielstadt · Impressum und Datenschutz",
    articles=(
        Article(
            "/wissen/wald.html",
            "wissen",
            "Warum der Wald mehr ist als Holz",
            "Wälder speichern Wasser und Kohlenstoff, kühlen die Landschaft und sind Lebensraum für "
            "unzählige Arten.",
            "2024-02-08",
            (
                "Fast ein Drittel der Fläche Deutschlands ist mit Wald bedeckt. Die häufigsten Baumarten "
                "sind Fichte, Kiefer, Buche und Eiche, wobei die Nadelbäume vor allem seit dem neunzehnten "
                "Jahrhundert gezielt angepflanzt wurden. Damals brauchte man schnell wachsendes Holz für "
                "Bergbau, Bau und Industrie.",
                "Ein Wald ist jedoch weit mehr als ein Holzlager. Der Waldboden nimmt Regenwasser auf wie "
                "ein Schwamm und gibt es langsam wieder ab, was Hochwasser dämpft und Quellen speist. Bäume "
                "binden Kohlendioxid aus der Luft, und an heißen Sommertagen ist es unter ihrem Kronendach "
                "oft mehrere Grad kühler als auf offenem Feld.",
                "Trockene Sommer und der Borkenkäfer haben in den letzten Jahren vor allem die "
                "Fichtenbestände stark geschädigt. Viele Förster setzen deshalb auf Mischwälder aus "
                "verschiedenen Baumarten, die Stürme, Hitze und Schädlinge besser verkraften. Bis ein "
                "solcher Wald herangewachsen ist, vergehen allerdings Jahrzehnte.",
            ),
        ),
        Article(
            "/wissen/brot.html",
            "wissen",
            "Die Kunst des Brotbackens",
            "Hunderte Brotsorten: warum Deutschland als „Brotland“ gilt.",
            "2024-01-25",
            (
                "Kaum ein Land hat so viele Brotsorten wie Deutschland. Bäcker unterscheiden rund "
                "dreihundert Grundsorten, und die deutsche Brotkultur wurde 2014 in das bundesweite "
                "Verzeichnis des immateriellen Kulturerbes aufgenommen. Neben Weizen spielen Roggen, Dinkel "
                "und Mischungen verschiedener Getreide eine große Rolle.",
                "Für Roggenbrot braucht man Sauerteig, denn Roggenmehl bildet kein stabiles Klebergerüst "
                "wie Weizen. Im Sauerteig arbeiten Milchsäurebakterien und wilde Hefen zusammen: Die Säure "
                "macht den Teig backfähig, die Hefen lockern ihn, und gemeinsam entsteht der kräftige, "
                "leicht säuerliche Geschmack.",
                "Gutes Brot braucht vor allem Zeit. Viele Bäcker lassen ihre Teige über Nacht ruhen, weil "
                "sich bei langer, kühler Gärung mehr Aromen bilden und das Brot länger frisch bleibt. Wer "
                "zu Hause backt, kann mit einem eigenen Sauerteig beginnen, der nur aus Mehl und Wasser "
                "angesetzt und einige Tage lang „gefüttert“ wird.",
            ),
        ),
        Article(
            "/wissen/mond.html",
            "wissen",
            "Der Mond und seine Phasen",
            "Warum der Mond sein Gesicht verändert und uns doch immer dieselbe Seite zeigt.",
            "2024-02-14",
            (
                "Der Mond leuchtet nicht selbst, sondern wirft das Licht der Sonne zurück. Je nachdem, wie "
                "Sonne, Erde und Mond zueinander stehen, sehen wir von seiner beleuchteten Hälfte einen "
                "größeren oder kleineren Teil. So entstehen die Phasen vom Neumond über den zunehmenden Mond "
                "und den Vollmond bis zum abnehmenden Mond.",
                "Ein vollständiger Zyklus dauert etwa neunundzwanzigeinhalb Tage. Auf diesen Rhythmus gehen "
                "viele alte Kalender zurück, und auch das Wort Monat ist mit dem Mond verwandt.",
                "Auffällig ist, dass wir von der Erde aus stets dieselbe Seite des Mondes sehen. Das liegt "
                "daran, dass sich der Mond genau einmal um sich selbst dreht, während er die Erde einmal "
                "umkreist. Diese gebundene Rotation ist das Ergebnis von Gezeitenkräften, die über "
                "Hunderte Millionen Jahre gewirkt haben. Die Rückseite des Mondes wurde erst 1959 von einer "
                "sowjetischen Raumsonde fotografiert.",
            ),
        ),
        Article(
            "/reise/rhein.html",
            "reise",
            "Eine Reise entlang des Rheins",
            "Vom Bodensee bis zur Nordsee: Burgen, Weinberge und eine der wichtigsten Wasserstraßen Europas.",
            "2024-01-12",
            (
                "Der Rhein entspringt in den Schweizer Alpen und mündet nach gut 1200 Kilometern in den "
                "Niederlanden in die Nordsee. Auf seinem Weg durchfließt er den Bodensee, stürzt bei "
                "Schaffhausen über den größten Wasserfall Mitteleuropas und bildet über weite Strecken die "
                "Grenze zwischen Deutschland und Frankreich.",
                "Am bekanntesten ist der Abschnitt zwischen Bingen und Koblenz, das Obere Mittelrheintal. "
                "Hier hat sich der Fluss tief in das Schiefergebirge eingeschnitten, und auf fast jedem "
                "Felsvorsprung steht eine Burg. Seit 2002 gehört die Landschaft zum Welterbe der UNESCO.",
                "Wer die Strecke bereisen möchte, kann zwischen Schiff, Bahn und Fahrrad wählen. Auf beiden "
                "Ufern verlaufen Eisenbahnlinien, und der Rheinradweg führt von der Quelle bis zur Mündung. "
                "Besonders schön ist die Fahrt im Herbst, wenn an den steilen Hängen die Weinlese beginnt.",
                "Unterhalb der Loreley, eines hohen Schieferfelsens am rechten Ufer, ist der Rhein eng und "
                "tief. Der Sage nach lockte hier eine Frau mit ihrem Gesang die Schiffer ins Verderben, und "
                "Heinrich Heine machte die Geschichte mit einem Gedicht berühmt.",
            ),
        ),
        Article(
            "/reise/alpen.html",
            "reise",
            "Wandern in den Alpen",
            "Hütten, Höhenwege und ein paar Regeln, damit die Tour ein gutes Ende nimmt.",
            "2024-02-02",
            (
                "Die Alpen erstrecken sich in einem weiten Bogen über acht Länder, von Frankreich bis "
                "Slowenien. Für Wanderer sind sie ein Paradies: Tausende Kilometer markierter Wege führen "
                "durch Täler, über Almen und auf Gipfel, und ein dichtes Netz von Berghütten bietet "
                "Schlafplatz und warmes Essen.",
                "Viele Hütten werden von Alpenvereinen betrieben, deren Mitglieder günstiger übernachten. "
                "In der Hochsaison sollte man einen Platz im Voraus reservieren, und auf den meisten Hütten "
                "ist ein eigener „Hüttenschlafsack“ Pflicht. Das Abendessen wird meist gemeinsam serviert, "
                "was schnell zu Gesprächen mit anderen Bergsteigern führt.",
                "Das Wetter in den Bergen kann sich rasch ändern. Erfahrene Wanderer brechen früh auf, weil "
                "sich an Sommernachmittagen oft Gewitter bilden, und sie nehmen auch bei Sonnenschein warme "
                "Kleidung und Regenschutz mit. Wer unsicher ist, fragt auf der Hütte nach dem Zustand der "
                "Wege, denn dort weiß man meist am besten, wo noch Schnee liegt.",
            ),
        ),
        Article(
            "/kultur/fahrrad.html",
            "kultur",
            "Die Geschichte des Fahrrads",
            "Alles begann 1817 in Mannheim mit einer hölzernen Laufmaschine.",
            "2024-01-20",
            (
                "Im Jahr 1817 stellte der Forstbeamte Karl Drais in Mannheim eine Laufmaschine vor, die aus "
                "zwei hintereinander angeordneten Rädern und einem hölzernen Rahmen bestand. Der Fahrer saß "
                "darauf und stieß sich mit den Füßen vom Boden ab. Die Draisine erreichte auf guten Straßen "
                "eine erstaunliche Geschwindigkeit, galt aber bald als gefährliches Spielzeug.",
                "In den 1860er-Jahren bekamen die Räder in Frankreich Tretkurbeln am Vorderrad. Um schneller "
                "zu fahren, wurde das Vorderrad immer größer, bis das Hochrad entstand, auf dem der Fahrer "
                "hoch über der Straße thronte. Stürze waren häufig und oft schwer.",
                "Der Durchbruch kam in den 1880er-Jahren mit dem Niederrad, dessen Hinterrad über eine Kette "
                "angetrieben wurde. Zusammen mit dem Luftreifen machte es das Radfahren sicher und bequem. "
                "Für viele Menschen, besonders für Frauen, bedeutete das Fahrrad eine neue Freiheit.",
            ),
        ),
        Article(
            "/kultur/maerchen.html",
            "kultur",
            "Die Märchen der Brüder Grimm",
            "Wie zwei Sprachforscher aus Hessen die bekannteste Märchensammlung der Welt schufen.",
            "2024-02-25",
            (
                "Jacob und Wilhelm Grimm waren eigentlich Sprachwissenschaftler. Neben ihrer Arbeit an der "
                "Geschichte der deutschen Sprache sammelten sie Erzählungen, die sie von Freunden, Bekannten "
                "und Erzählerinnen hörten oder in älteren Büchern fanden. 1812 erschien der erste Band der "
                "Kinder- und Hausmärchen.",
                "Die Brüder überarbeiteten die Sammlung in den folgenden Jahrzehnten mehrfach. Vor allem "
                "Wilhelm glättete die Sprache, machte die Geschichten kindgerechter und fügte Redewendungen "
                "hinzu, die heute als typisch für Märchen gelten. Die Ausgabe letzter Hand von 1857 enthält "
                "rund zweihundert Märchen, darunter Rotkäppchen, Hänsel und Gretel und Aschenputtel.",
                "Die Kinder- und Hausmärchen wurden in mehr als hundert Sprachen übersetzt und gehören seit "
                "2005 zum Weltdokumentenerbe der UNESCO. Entlang der Deutschen Märchenstraße, die von Hanau "
                "bis Bremen führt, erinnern viele Orte an die Brüder und ihre Geschichten.",
            ),
        ),
    ),
)

# --- blog.exemple.fr (French) ---------------------------------------------------------------------

_EXEMPLE = Site(
    base="https://blog.exemple.fr",
    home="/",
    lang="fr",
    name="Carnet de l'Exemple",
    tagline="Voyages, sciences et art de vivre",
    intro=(
        "Bienvenue sur le Carnet de l'Exemple, un blog consacré aux voyages, aux sciences et à l'art de "
        "vivre. Nous y publions des articles de fond, écrits sans hâte, sur des sujets qui nous "
        "passionnent. Bonne lecture, et n'hésitez pas à nous écrire."
    ),
    sections=(
        ("voyages", "Voyages"),
        ("sciences", "Sciences"),
        ("culture", "Culture"),
        ("cuisine", "Cuisine"),
    ),
    related_label="À lire aussi",
    partners_label="Nos partenaires",
    footer="© 2024 Carnet de l'Exemple. Tous droits réservés. Mentions légales.",
    articles=(
        Article(
            "/voyages/loire.html",
            "voyages",
            "Les châteaux de la Loire",
            "Entre Orléans et Angers, la vallée de la Loire aligne des châteaux de la Renaissance et des "
            "paysages inscrits au patrimoine mondial.",
            "2024-01-15",
            (
                "La Loire est le plus long fleuve de France : elle parcourt environ mille kilomètres entre "
                "le Massif central et l'océan Atlantique. Sa vallée, entre Sully-sur-Loire et Chalonnes, est "
                "inscrite au patrimoine mondial de l'UNESCO depuis 2000 pour ses paysages culturels et ses "
                "villes historiques.",
                "Au seizième siècle, les rois de France et leur cour séjournaient volontiers dans la région. "
                "Ils y firent construire ou transformer des châteaux dans le nouveau style venu d'Italie. "
                "Chambord, avec son escalier à double révolution, Chenonceau, qui enjambe le Cher, et "
                "Amboise, où Léonard de Vinci passa ses dernières années, attirent aujourd'hui des visiteurs "
                "du monde entier.",
                "Le meilleur moyen de découvrir la vallée est sans doute le vélo. L'itinéraire de la Loire à "
                "Vélo suit le fleuve sur des centaines de kilomètres, souvent sur des routes tranquilles ou "
                "des chemins de halage, et permet de passer d'un château à l'autre en s'arrêtant dans les "
                "villages et les caves.",
            ),
        ),
        Article(
            "/sciences/phares.html",
            "sciences",
            "Les phares, sentinelles de la côte",
            "Comment les phares guident les navires depuis l'Antiquité, et pourquoi la lentille de Fresnel "
            "a tout changé.",
            "2024-02-03",
            (
                "Depuis l'Antiquité, les marins allument des feux pour signaler les dangers de la côte. Le "
                "phare d'Alexandrie, construit au troisième siècle avant notre ère, comptait parmi les sept "
                "merveilles du monde, et l'île sur laquelle il se dressait a donné son nom au mot phare.",
                "Pendant longtemps, la lumière de ces tours restait faible, car les lampes à huile et les "
                "miroirs ne concentraient qu'une petite partie des rayons. En 1822, le physicien Augustin "
                "Fresnel présenta une lentille composée d'anneaux de verre concentriques, plus légère et "
                "bien plus efficace qu'une lentille ordinaire. Grâce à elle, la lumière d'un phare "
                "pouvait être vue à plus de trente kilomètres.",
                "Chaque phare possède son propre rythme de signaux, de sorte que les marins peuvent le "
                "reconnaître la nuit. Aujourd'hui, la plupart des phares sont automatisés et les gardiens "
                "ont disparu, mais les tours restent des repères précieux, et beaucoup se visitent en été.",
            ),
        ),
        Article(
            "/sciences/volcans.html",
            "sciences",
            "Comment naissent les volcans",
            "Du magma aux coulées de lave : ce qui se passe sous nos pieds avant une éruption.",
            "2024-02-17",
            (
                "Sous la croûte terrestre, une partie du manteau peut fondre et former du magma, un mélange "
                "de roche liquide, de cristaux et de gaz. Plus léger que les roches qui l'entourent, le "
                "magma remonte lentement et s'accumule dans des réservoirs situés à quelques kilomètres de "
                "profondeur.",
                "La plupart des volcans se trouvent aux frontières des plaques tectoniques. Là où deux "
                "plaques s'écartent, comme en Islande, le magma remonte facilement et produit des coulées "
                "de lave fluide. Là où une plaque plonge sous une autre, comme autour du Pacifique, le "
                "magma est plus visqueux et riche en gaz, ce qui provoque des éruptions explosives.",
                "Il existe aussi des volcans au milieu des plaques, au-dessus de points chauds. L'archipel "
                "d'Hawaï s'est formé ainsi : la plaque Pacifique se déplace au-dessus d'un panache de roche "
                "chaude, et une chaîne d'îles naît peu à peu. La Réunion doit son existence à un phénomène "
                "semblable, et le piton de la Fournaise est l'un des volcans les plus actifs du monde.",
                "Les volcanologues surveillent les volcans actifs grâce à des sismomètres, à des mesures de "
                "gaz et à des satellites qui détectent le moindre gonflement du sol. Prévoir exactement le "
                "moment d'une éruption reste difficile, mais ces observations permettent souvent d'alerter "
                "la population à temps.",
            ),
        ),
        Article(
            "/culture/jardins.html",
            "culture",
            "Le jardin à la française",
            "Allées rectilignes, parterres de broderie et perspectives infinies : l'art d'André Le Nôtre.",
            "2024-01-28",
            (
                "Le jardin à la française est né au dix-septième siècle, à une époque où l'on voulait "
                "montrer que l'homme pouvait ordonner la nature. Ses traits essentiels sont la symétrie, les "
                "allées droites, les bassins géométriques et les arbres taillés avec précision.",
                "Son maître incontesté est André Le Nôtre, jardinier du roi Louis XIV. Après avoir dessiné "
                "les jardins de Vaux-le-Vicomte, il conçut ceux de Versailles, où il travailla pendant près "
                "de quarante ans. Il joua avec les perspectives pour que le jardin paraisse plus vaste qu'il "
                "ne l'est, et plaça le château au centre d'un immense axe qui se perd à l'horizon.",
                "Ce style a été imité dans toute l'Europe, de Vienne à Saint-Pétersbourg. Il a ensuite été "
                "concurrencé par le jardin à l'anglaise, plus libre et plus naturel, mais les grands "
                "parterres dessinés par Le Nôtre continuent d'attirer des millions de visiteurs chaque "
                "année.",
            ),
        ),
        Article(
            "/cuisine/fromages.html",
            "cuisine",
            "La France et ses fromages",
            "Plus d'un millier de fromages, des appellations protégées et un savoir-faire transmis de "
            "génération en génération.",
            "2024-02-10",
            (
                "On prête au général de Gaulle une phrase célèbre sur la difficulté de gouverner un pays qui "
                "compte deux cent quarante-six variétés de fromage. En réalité, la France en produit bien "
                "davantage, plus d'un millier selon certaines estimations, au lait de vache, de chèvre ou de "
                "brebis.",
                "Une partie d'entre eux bénéficie d'une appellation d'origine protégée. Ce label garantit "
                "que le fromage est fabriqué dans une région précise, selon des règles qui fixent la race "
                "des animaux, leur alimentation et la méthode de fabrication. Le roquefort, affiné dans "
                "les caves naturelles du Combalou, fut le premier fromage à recevoir une appellation, en "
                "1925.",
                "Un plateau classique réunit généralement un fromage à pâte molle, comme le camembert, un "
                "fromage à pâte pressée, comme le comté, un fromage de chèvre et un bleu. On le sert "
                "traditionnellement après le plat principal et avant le dessert, avec du pain plutôt "
                "qu'avec des biscuits.",
            ),
        ),
        Article(
            "/culture/cinema.html",
            "culture",
            "Les frères Lumière et la naissance du cinéma",
            "Le 28 décembre 1895, à Paris, le public d'un café découvrait l'une des premières projections "
            "payantes.",
            "2024-02-24",
            (
                "Auguste et Louis Lumière dirigeaient à Lyon une entreprise florissante de plaques "
                "photographiques. Au milieu des années 1890, ils mirent au point le cinématographe, un "
                "appareil léger qui servait à la fois de caméra, de tireuse et de projecteur.",
                "Le 28 décembre 1895, ils organisèrent à Paris, dans le salon indien du Grand Café, "
                "boulevard des Capucines, une des premières projections publiques payantes de l'histoire. Le "
                "programme comptait une dizaine de films d'environ une minute chacun, dont la célèbre Sortie "
                "de l'usine Lumière à Lyon.",
                "Les frères envoyèrent ensuite des opérateurs dans le monde entier pour filmer et "
                "projeter des vues. Louis Lumière pensait pourtant que le cinéma n'avait guère d'avenir "
                "commercial, et l'entreprise se concentra bientôt de nouveau sur la photographie, "
                "notamment sur l'autochrome, un des premiers procédés de photographie en couleurs.",
            ),
        ),
    ),
)

# --- ru.example.net (Russian) ---------------------------------------------------------------------

_RU = Site(
    base="http://ru.example.net",
    home="/",
    lang="ru",
    name="Пример.Журнал",
    tagline="Природа, история и культура России",
    intro=(
        "Пример.Журнал рассказывает о природе, истории и культуре России. Мы пишем о далёких озёрах и "
        "лесах, о дорогах, которые соединили огромную страну, и о традициях, которые живут до сих пор. "
        "Новые статьи появляются каждую неделю."
    ),
    sections=(("priroda", "Природа"), ("istoriya", "История"), ("kultura", "Культура")),
    related_label="Читайте также",
    partners_label="Наши партнёры",
    footer="© 2024 Пример.Журнал. Все права защищены. Перепечатка материалов только с разрешения редакции.",
    articles=(
        Article(
            "/priroda/baikal.html",
            "priroda",
            "Байкал — самое глубокое озеро планеты",
            "Байкал хранит около пятой части пресной озёрной воды Земли, и в нём живут тысячи уникальных "
            "видов.",
            "2024-01-22",
            (
                "Байкал расположен в Восточной Сибири, на границе Иркутской области и Республики Бурятия. "
                "Его наибольшая глубина превышает 1600 метров, и это самое глубокое озеро на Земле. В "
                "Байкале содержится около двадцати процентов мировых запасов пресной озёрной воды.",
                "Озеру примерно двадцать пять миллионов лет, что делает его одним из древнейших на планете. "
                "За это время здесь сложился удивительный животный мир: большинство видов, живущих в "
                "Байкале, больше нигде не встречаются. Самый известный из них — байкальская нерпа, "
                "единственный тюлень, обитающий в пресной воде.",
                "Зимой озеро покрывается толстым льдом, настолько прозрачным, что сквозь него видно дно на "
                "глубине нескольких метров. В 1996 году Байкал был включён в список объектов Всемирного "
                "наследия ЮНЕСКО.",
            ),
        ),
        Article(
            "/istoriya/transsib.html",
            "istoriya",
            "Транссибирская магистраль",
            "Самая длинная железная дорога в мире соединяет Москву с Владивостоком.",
            "2024-02-06",
            (
                "Строительство Транссибирской магистрали началось в 1891 году и продолжалось более двадцати "
                "лет. Дорогу прокладывали одновременно с нескольких сторон, через тайгу, болота и горы, в "
                "условиях сурового климата. Особенно трудным оказался участок вокруг южной оконечности "
                "Байкала.",
                "Сегодня длина пути от Москвы до Владивостока составляет около 9300 километров. Поезд "
                "идёт почти неделю, а разница во времени между концами пути составляет семь часов. По "
                "дороге пассажиры видят Урал, бескрайние степи, сибирские реки и берега Байкала.",
                "Магистраль по-прежнему имеет огромное значение для экономики страны. По ней перевозят "
                "уголь, лес, контейнеры и миллионы пассажиров. Для многих путешественников из разных стран "
                "поездка по Транссибу остаётся мечтой.",
            ),
        ),
        Article(
            "/kultura/matreshka.html",
            "kultura",
            "Как появилась матрёшка",
            "Самый известный русский сувенир придумали в конце девятнадцатого века.",
            "2024-02-13",
            (
                "Первая русская матрёшка была создана в 1890-х годах в Москве, в мастерской «Детское "
                "воспитание». Её выточил токарь Василий Звёздочкин, а расписал художник Сергей Малютин. "
                "Набор состоял из восьми фигурок: девочки в сарафане, мальчиков и младенца.",
                "Считается, что идею подсказала японская игрушка, изображавшая мудреца, внутри которого "
                "прятались другие фигурки. Имя Матрёна было в то время одним из самых распространённых в "
                "деревне, и ласковое «матрёшка» быстро закрепилось за игрушкой.",
                "В 1900 году матрёшка получила медаль на Всемирной выставке в Париже, и вскоре её стали "
                "делать во многих местах. Особенно известны матрёшки из Сергиева Посада и Семёнова, у "
                "каждой из которых свой стиль росписи.",
            ),
        ),
        Article(
            "/priroda/taiga.html",
            "priroda",
            "Тайга: лес на краю света",
            "Огромный северный лес протянулся через всю Россию, от Карелии до Тихого океана.",
            "2024-01-29",
            (
                "Тайга — самый большой лесной пояс на Земле. В России она занимает большую часть территории "
                "страны и тянется от западных границ до побережья Тихого океана. Основу тайги составляют "
                "хвойные деревья: ель, пихта, сосна, кедр и лиственница.",
                "Лиственница особенно хорошо приспособлена к суровым условиям Восточной Сибири. Она "
                "сбрасывает хвою на зиму и способна расти на вечной мерзлоте, где летом оттаивает лишь "
                "тонкий слой почвы.",
                "В тайге живут бурые медведи, лоси, соболи, рыси и множество птиц. Леса влияют на климат "
                "всей планеты, поэтому учёные внимательно следят за лесными пожарами, которые в жаркие годы "
                "охватывают огромные площади.",
            ),
        ),
        Article(
            "/kultura/chai.html",
            "kultura",
            "Русское чаепитие и самовар",
            "Как чай стал национальным напитком и почему самовар — символ домашнего уюта.",
            "2024-02-19",
            (
                "Чай пришёл в Россию в семнадцатом веке из Китая, сначала как дорогой подарок царскому "
                "двору. Позже его везли караванами через Сибирь, и путь занимал больше года. Только в "
                "девятнадцатом веке чай стал доступен широким слоям населения.",
                "Главным предметом русского чаепития стал самовар — металлический сосуд с трубой внутри, в "
                "которой горят угли. Вода в нём долго остаётся горячей, а сверху ставят небольшой чайник с "
                "крепкой заваркой. Каждый наливает себе заварку и разбавляет её кипятком по вкусу.",
                "Центром производства самоваров была Тула. Чай пили не спеша, с вареньем, мёдом, пряниками и "
                "баранками, и застолье могло длиться часами. Выражение «пригласить на чай» до сих пор "
                "означает не только напиток, но и дружескую беседу.",
            ),
        ),
    ),
)

# --- jp.example.jp (Japanese) ---------------------------------------------------------------------

_JP = Site(
    base="http://jp.example.jp",
    home="/",
    lang="ja",
    name="例示ジャーナル",
    tagline="日本の自然と文化",
    intro=(
        "例示ジャーナルは、日本の自然、文化、技術について分かりやすく紹介するウェブマガジンです。"
        "季節の話題から歴史まで、毎月新しい記事をお届けします。"
    ),
    sections=(("shizen", "自然"), ("bunka", "文化"), ("gijutsu", "技術")),
    related_label="関連記事",
    partners_label="提携サイト",
    footer="Copyright 2024 例示ジャーナル 無断転載を禁じます。",
    articles=(
        Article(
            "/shizen/fuji.html",
            "shizen",
            "富士山の四季",
            "日本一高い山、富士山は季節ごとにまったく違う表情を見せます。",
            "2024-01-16",
            (
                "富士山は静岡県と山梨県にまたがる活火山で、標高は三千七百七十六メートルです。"
                "日本で最も高い山であり、古くから信仰の対象として、また多くの芸術作品の題材として"
                "親しまれてきました。二〇一三年には世界文化遺産に登録されました。",
                "冬の富士山は雪に覆われ、澄んだ空気の中で遠くからもはっきりと見えます。"
                "春には山麓の湖のほとりで桜が咲き、夏の二か月ほどの間だけ山頂までの登山道が開かれます。"
                "毎年多くの人が夜に登り始め、山頂で日の出を迎えます。",
                "秋になると山麓の木々が赤や黄色に色づき、やがて山頂に初冠雪が観測されます。"
                "葛飾北斎の「富嶽三十六景」にも描かれているように、季節や見る場所によって"
                "富士山の姿は大きく変わります。",
            ),
        ),
        Article(
            "/bunka/sakura.html",
            "bunka",
            "桜と花見の歴史",
            "春になると、日本中の人々が桜の木の下に集まります。",
            "2024-02-09",
            (
                "日本では春になると各地で桜が咲き、多くの人が花見を楽しみます。"
                "花見の習慣は奈良時代から平安時代にかけて貴族の間で始まったと言われています。"
                "当初は梅の花を観賞することが多かったのですが、次第に桜が中心になりました。",
                "江戸時代になると、花見は庶民の楽しみとして広まりました。"
                "現在最も多く植えられているソメイヨシノは、江戸時代の末期に江戸の染井村で生まれた品種です。",
                "民間の気象会社は毎年、桜の開花予想を発表します。"
                "開花は南の九州から始まり、北海道まで二か月近くかけて北上していきます。"
                "この移り変わりは「桜前線」と呼ばれ、ニュースでも毎日のように伝えられます。",
            ),
        ),
        Article(
            "/gijutsu/shinkansen.html",
            "gijutsu",
            "新幹線の誕生",
            "一九六四年に開業した新幹線は、世界の高速鉄道の先駆けとなりました。",
            "2024-02-21",
            (
                "東海道新幹線は、東京オリンピックの開幕直前の一九六四年十月に開業しました。"
                "東京と新大阪を結ぶこの路線は、営業運転で時速二百キロを超える世界初の高速鉄道でした。",
                "新幹線の特徴は、速さだけでなく、安全性と正確さにあります。"
                "開業以来、乗客が死亡する衝突事故や脱線事故は一度も起きていません。"
                "また、列車の平均の遅れは一分にも満たないと言われています。",
                "現在、新幹線の路線は北海道から九州まで延びています。その成功は各国の鉄道にも大きな影響を与え、ヨーロッパやアジアでも高速鉄道の建設が進みました。",
            ),
        ),
        Article(
            "/bunka/washoku.html",
            "bunka",
            "和食とだしの文化",
            "ユネスコ無形文化遺産にも登録された和食の基本は、だしのうま味です。",
            "2024-01-26",
            (
                "二〇一三年、和食は日本人の伝統的な食文化としてユネスコの無形文化遺産に登録されました。"
                "季節の食材を大切にし、自然の美しさを料理で表現することが、その特徴とされています。",
                "和食の味の土台となるのがだしです。昆布やかつお節、煮干し、干し椎茸などを水で煮出して作ります。昆布に多く含まれるグルタミン酸のうま味は、一九〇八年に化学者の池田菊苗によって発見されました。",
                "みそ汁や煮物、うどんのつゆなど、多くの料理にだしが使われます。"
                "家庭では手軽な顆粒だしもよく使われますが、丁寧にとっただしの香りは格別です。",
            ),
        ),
        Article(
            "/bunka/origami.html",
            "bunka",
            "折り紙の世界",
            "一枚の紙から動物や花を生み出す折り紙は、今や科学や工学にも応用されています。",
            "2024-02-26",
            (
                "折り紙は、一枚の正方形の紙を切らずに折って、さまざまな形を作る遊びです。"
                "紙が貴重だった時代には儀式の包みなどに使われていましたが、江戸時代には庶民の遊びとして"
                "広まりました。",
                "代表的な作品である折り鶴は、平和への願いの象徴としても知られています。"
                "広島では、原爆の影響で病気になった少女が回復を願って鶴を折り続けた話が語り継がれ、"
                "今も世界中から折り鶴が届けられます。",
                "近年、折り紙の技術は工学の分野でも注目されています。"
                "小さくたたんで運び、宇宙で大きく広げる太陽電池パネルや、医療用の器具の設計にも、"
                "折り紙の考え方が応用されています。",
            ),
        ),
    ),
)

# --- shop.example.com: an English shop with Spanish, Chinese, Greek and Arabic sections ----------------

_SYNDICATED_OLD = (
    "A canopy of taller trees lowers the temperature around the coffee bushes by several degrees, keeps "
    "the soil moist and shelters birds that eat harmful insects."
)
_SYNDICATED_NEW = (
    "A canopy of taller trees can cool the coffee bushes by as much as four degrees, keeps the soil moist "
    "and shelters birds that eat harmful insects."
)


def _syndicated(original: Article, path: str, section: str, old: str, new: str) -> Article:
    """A republished copy of ``original`` with one sentence edited: a near-duplicate."""
    paragraphs = tuple(p.replace(old, new) for p in original.paragraphs)
    if paragraphs == original.paragraphs:
        raise ValueError(f"sentence to edit not found in {original.path!r}: {old[:40]!r}")
    return replace(original, path=path, section=section, paragraphs=paragraphs)


_SHOP_EN = Site(
    base="http://shop.example.com",
    home="/",
    lang="en",
    name="Example Trading Co.",
    tagline="Good things from around the world",
    intro=(
        "Example Trading Co. sells a small range of well-made goods for the kitchen and the table, sourced "
        "from workshops and farms we know personally. Browse our products, read the stories behind them, "
        "or visit our shops in Spanish, Chinese, Greek and Arabic."
    ),
    sections=(("products", "Products"), ("stories", "Stories")),
    related_label="You may also like",
    partners_label="Our shops and friends",
    footer="© 2024 Example Trading Co. Free shipping on orders over 50 euros. Questions? Write to our "
    "customer service.",
    articles=(
        Article(
            "/products/cast-iron-teapot.html",
            "products",
            "Cast Iron Teapot, 0.8 Litres",
            "A heavy, heat-keeping teapot with an enamelled interior and a stainless steel infuser.",
            "2024-01-10",
            (
                "Cast iron kettles have been made in Japan for centuries, where they are known as tetsubin. "
                "Our teapot is cast in one piece and coated inside with enamel, so it is meant for brewing "
                "rather than for the stove. The thick walls keep tea hot for a long time, which makes it "
                "ideal for slow afternoons.",
                "Rinse the pot with warm water after use and dry it immediately, ideally by leaving the lid "
                "off while it is still warm. Do not use detergent or put it in the dishwasher. The pot "
                "holds 0.8 litres, enough for about four cups, and comes with a removable infuser for "
                "loose-leaf tea.",
            ),
        ),
        Article(
            "/products/linen-apron.html",
            "products",
            "Linen Kitchen Apron",
            "A sturdy apron of washed European linen with two deep pockets and adjustable straps.",
            "2024-01-11",
            (
                "Linen is made from the fibres of the flax plant, one of the oldest textile crops in the "
                "world. It is strong, absorbs moisture well and becomes softer with every wash. Our aprons "
                "are sewn from washed linen woven in Lithuania, a country with a long tradition of flax "
                "growing.",
                "The apron has two deep front pockets, a loop for a kitchen towel and cross-back straps that "
                "spread the weight across the shoulders instead of the neck. Wash it at forty degrees and "
                "hang it to dry; a little wrinkling is part of the charm of linen.",
            ),
        ),
        _syndicated(_COFFEE, "/stories/coffee-harvest.html", "stories", _SYNDICATED_OLD, _SYNDICATED_NEW),
    ),
)

_SHOP_ES = Site(
    base="http://shop.example.com",
    home="/es/",
    lang="es",
    name="Tienda Ejemplo",
    tagline="Productos del Mediterráneo",
    intro=(
        "Bienvenido a la tienda en español de Example Trading Co. Aquí encontrará productos seleccionados "
        "de pequeños productores, junto con guías que explican su origen y su mejor uso. Enviamos a toda la "
        "península en un plazo de tres días laborables."
    ),
    sections=(("productos", "Productos"), ("guias", "Guías")),
    related_label="Artículos relacionados",
    partners_label="Nuestras tiendas",
    footer="© 2024 Example Trading Co. · Envío gratuito a partir de 50 euros · Atención al cliente de lunes "
    "a viernes",
    articles=(
        Article(
            "/es/productos/aceite-de-oliva.html",
            "productos",
            "Aceite de oliva virgen extra, 500 ml",
            "Aceite extraído en frío de aceitunas picual cultivadas en Jaén.",
            "2024-01-17",
            (
                "España es el mayor productor de aceite de oliva del mundo, y la provincia de Jaén, en "
                "Andalucía, concentra una parte enorme de esa producción. Allí, los olivares cubren colinas "
                "enteras hasta donde alcanza la vista. Nuestro aceite procede de una cooperativa de la "
                "comarca que cosecha la aceituna picual a principios del invierno.",
                "El aceite de oliva virgen extra se obtiene solo por medios mecánicos, sin calor ni "
                "disolventes, y debe tener una acidez inferior al 0,8 %. La variedad picual da un aceite "
                "intenso, con notas de hierba recién cortada y un final ligeramente picante. Guárdelo lejos "
                "de la luz y del calor, y consúmalo en los meses siguientes a su apertura.",
            ),
        ),
        Article(
            "/es/guias/paella.html",
            "guias",
            "La paella valenciana: historia y consejos",
            "Lo que hay que saber sobre el plato más famoso de Valencia.",
            "2024-02-01",
            (
                "La paella nació en los campos de arroz que rodean la Albufera de Valencia. Los trabajadores "
                "la cocinaban al aire libre, sobre un fuego de leña, con lo que tenían a mano: arroz, "
                "verduras, conejo, pollo y, a veces, caracoles. El nombre viene de la sartén ancha y poco "
                "profunda en la que se prepara.",
                "La receta tradicional valenciana lleva pollo, conejo, judía verde, garrofón, tomate, "
                "aceite de oliva, azafrán y arroz de grano redondo. El marisco es típico de otras "
                "versiones, como la paella de marisco, que muchos valencianos consideran un plato "
                "distinto.",
                "El secreto está en no remover el arroz una vez añadido el caldo. Al final de la cocción se "
                "forma en el fondo una capa ligeramente tostada, el socarrat, que es la parte más apreciada. "
                "La paella se deja reposar unos minutos antes de servirla, y tradicionalmente se come "
                "directamente de la sartén.",
            ),
        ),
    ),
)

_SHOP_ZH = Site(
    base="http://shop.example.com",
    home="/zh/",
    lang="zh",
    name="示例商店",
    tagline="来自世界各地的好物",
    intro=(
        "欢迎光临示例商店中文站。我们精选来自小型茶园和作坊的商品，并为每件商品写下它的来历和使用方法。"
        "所有订单均在两个工作日内发货。"
    ),
    sections=(("products", "商品"), ("guides", "指南")),
    related_label="相关内容",
    partners_label="我们的其他商店",
    footer="© 2024 Example Trading Co. 保留所有权利。订单满五十欧元免运费。",
    articles=(
        Article(
            "/zh/products/longjing-tea.html",
            "products",
            "西湖龙井绿茶 100克",
            "产自杭州西湖周边茶园的明前龙井，外形扁平光滑，香气清高。",
            "2024-01-19",
            (
                "龙井茶是中国最著名的绿茶之一，产于浙江省杭州市西湖周边的山区。它的名字来自当地的一口古井。"
                "龙井茶的茶叶扁平挺直，颜色翠绿，冲泡后香气清新，滋味鲜爽。",
                "清明节之前采摘的茶叶被称为明前茶，芽叶细嫩，产量很少，因此格外珍贵。"
                "采摘后的鲜叶要在热锅中用手反复压、抓、推，才能炒出龙井特有的扁平形状。",
                "冲泡龙井时，水温以八十度左右为宜，最好使用透明的玻璃杯，这样可以欣赏茶叶在水中慢慢舒展的样子。茶叶应密封保存，并放在阴凉干燥的地方。",
            ),
        ),
        Article(
            "/zh/guides/silk-road.html",
            "guides",
            "丝绸与丝绸之路",
            "丝绸的故事，以及一条连接东西方的古老商路。",
            "2024-02-07",
            (
                "中国是世界上最早养蚕和织造丝绸的国家。根据考古发现，早在五千多年前，中国人就已经开始利用蚕丝。传说黄帝的妻子嫘祖教会了人们养蚕缫丝。",
                "在很长一段时间里，丝绸的制作方法一直是中国的秘密。西汉时期，张骞出使西域，打通了从长安通往中亚的道路。此后，丝绸、瓷器和茶叶经由这条道路运往西方，而葡萄、香料和玻璃器皿则传入中国。",
                "十九世纪，德国地理学家李希霍芬把这条路线称为丝绸之路。如今，这个名字已经成为东西方交流的象征。",
            ),
        ),
    ),
)

_SHOP_EL = Site(
    base="http://shop.example.com",
    home="/el/",
    lang="el",
    name="Κατάστημα Παράδειγμα",
    tagline="Αγαθά από την ελληνική ύπαιθρο",
    intro=(
        "Καλώς ήρθατε στο ελληνικό κατάστημα της Example Trading Co. Συνεργαζόμαστε με μικρούς παραγωγούς "
        "από την Κρήτη, την Πελοπόννησο και τα νησιά του Αιγαίου. Κάθε προϊόν συνοδεύεται από έναν σύντομο "
        "οδηγό για την ιστορία και τη χρήση του."
    ),
    sections=(("proionta", "Προϊόντα"), ("odigoi", "Οδηγοί")),
    related_label="Σχετικά άρθρα",
    partners_label="Τα άλλα μας καταστήματα",
    footer="© 2024 Example Trading Co. Δωρεάν αποστολή για παραγγελίες άνω των 50 ευρώ.",
    articles=(
        Article(
            "/el/proionta/thymarisio-meli.html",
            "proionta",
            "Θυμαρίσιο μέλι από την Κρήτη, 450 γρ.",
            "Αρωματικό μέλι από άνθη θυμαριού, από τα βουνά της Κρήτης.",
            "2024-01-23",
            (
                "Η μελισσοκομία στην Ελλάδα έχει μακρά ιστορία. Ήδη στην αρχαιότητα το μέλι χρησιμοποιούνταν "
                "ως τροφή, ως φάρμακο και ως προσφορά στους θεούς. Σήμερα η χώρα έχει έναν από τους "
                "μεγαλύτερους αριθμούς κυψελών ανά κάτοικο στην Ευρώπη.",
                "Το θυμαρίσιο μέλι θεωρείται από τα πιο εκλεκτά ελληνικά μέλια. Οι μέλισσες το παράγουν από "
                "τα άνθη του θυμαριού, που καλύπτουν τις ξερές πλαγιές των νησιών το καλοκαίρι. Έχει ανοιχτό "
                "κεχριμπαρένιο χρώμα, έντονο άρωμα και κρυσταλλώνει αργά.",
                "Αν το μέλι κρυσταλλώσει, αρκεί να τοποθετήσετε το βάζο σε χλιαρό νερό για λίγη ώρα. Μην το "
                "ζεστάνετε πάνω από σαράντα βαθμούς, για να διατηρήσει το άρωμά του.",
            ),
        ),
        Article(
            "/el/odigoi/elia.html",
            "odigoi",
            "Η ελιά στην ελληνική ζωή",
            "Από τη μυθολογία μέχρι το καθημερινό τραπέζι, η ελιά συνοδεύει τους Έλληνες εδώ και χιλιετίες.",
            "2024-02-11",
            (
                "Σύμφωνα με τον μύθο, η θεά Αθηνά χάρισε την πρώτη ελιά στους κατοίκους της Αθήνας και έτσι "
                "η πόλη πήρε το όνομά της. Το κλαδί της ελιάς έγινε σύμβολο ειρήνης και σοφίας, και με "
                "στεφάνια από ελιά τιμούσαν τους νικητές των Ολυμπιακών Αγώνων.",
                "Η ελιά είναι δέντρο ανθεκτικό, που αντέχει την ξηρασία και ζει εκατοντάδες χρόνια. Σε πολλά "
                "χωριά υπάρχουν δέντρα που φυτεύτηκαν πριν από αιώνες και εξακολουθούν να δίνουν καρπό.",
                "Η συγκομιδή γίνεται συνήθως από τον Νοέμβριο ως τον Ιανουάριο. Οι οικογένειες απλώνουν "
                "δίχτυα κάτω από τα δέντρα και ραβδίζουν τα κλαδιά, και ο καρπός μεταφέρεται στο "
                "ελαιοτριβείο την ίδια μέρα.",
            ),
        ),
    ),
)

_SHOP_AR = Site(
    base="http://shop.example.com",
    home="/ar/",
    lang="ar",
    name="متجر المثال",
    tagline="منتجات مختارة من الشرق",
    intro=(
        "مرحبا بكم في المتجر العربي لشركة المثال التجارية. نختار منتجاتنا بعناية من مزارع وورش صغيرة، "
        "ونرفق بكل منتج دليلا قصيرا عن أصله وطريقة استخدامه. يتم شحن الطلبات خلال ثلاثة أيام عمل."
    ),
    sections=(("products", "المنتجات"), ("guides", "أدلة")),
    related_label="اقرأ أيضا",
    partners_label="متاجرنا الأخرى",
    footer="© 2024 شركة المثال التجارية. جميع الحقوق محفوظة. الشحن مجاني للطلبات التي تزيد على 50 يورو.",
    articles=(
        Article(
            "/ar/products/medjool-dates.html",
            "products",
            "تمر المجهول، علبة 500 غرام",
            "تمر كبير الحجم طري القوام، غني بالطعم ومثالي مع القهوة.",
            "2024-01-24",
            (
                "النخيل من أقدم الأشجار التي زرعها الإنسان، وقد عرفت زراعته في بلاد الرافدين ومصر منذ آلاف "
                "السنين. ويعد التمر غذاء أساسيا في كثير من البلدان العربية، لأنه غني بالسكريات الطبيعية "
                "والألياف والمعادن.",
                "يتميز تمر المجهول بحجمه الكبير وقوامه الطري ولونه البني الداكن. وهو من أغلى أصناف التمر "
                "وأكثرها طلبا. يقدم التمر عادة مع القهوة العربية عند استقبال الضيوف، كما يفطر عليه الصائمون "
                "في شهر رمضان.",
                "يحفظ التمر في مكان بارد وجاف، ويمكن وضعه في الثلاجة ليبقى طريا لعدة أشهر.",
            ),
        ),
        Article(
            "/ar/guides/calligraphy.html",
            "guides",
            "فن الخط العربي",
            "تعرف على أشهر أنواع الخط العربي والأدوات التي يستخدمها الخطاطون.",
            "2024-02-16",
            (
                "الخط العربي من أرقى الفنون في الحضارة الإسلامية. وقد تطور عبر القرون من الكتابة البسيطة إلى "
                "أنواع كثيرة، لكل منها قواعده وجماله الخاص.",
                "من أشهر أنواع الخط: الكوفي بزواياه الحادة، والنسخ الواضح الذي تطبع به معظم الكتب، والثلث "
                "الذي يزين المساجد، والديواني الذي استخدم في دواوين الدولة العثمانية، والرقعة الذي يكتب به "
                "الناس في حياتهم اليومية.",
                "يستخدم الخطاط قلما من القصب يبريه بسكين حادة، وحبرا أسود يصنع تقليديا من السخام والصمغ. "
                "ويحتاج إتقان هذا الفن إلى سنوات طويلة من التدريب على يد معلم.",
                "في عام 2021 أدرجت منظمة اليونسكو الخط العربي في قائمة التراث الثقافي غير المادي للبشرية.",
            ),
        ),
    ),
)

SITES: tuple[Site, ...] = (
    _NEWS,
    _BEISPIEL,
    _EXEMPLE,
    _RU,
    _JP,
    _SHOP_EN,
    _SHOP_ES,
    _SHOP_ZH,
    _SHOP_EL,
    _SHOP_AR,
)

# Links from an article to pages on other hosts, besides the previous/next links every article has.
CROSS_LINKS: tuple[tuple[str, str], ...] = (
    (
        "http://news.example.org/science/honeybees.html",
        "http://shop.example.com/el/proionta/thymarisio-meli.html",
    ),
    ("http://news.example.org/world/clean-rivers.html", "http://www.beispiel.de/reise/rhein.html"),
    ("http://news.example.org/world/night-trains.html", "http://jp.example.jp/gijutsu/shinkansen.html"),
    ("http://news.example.org/culture/printing-press.html", "http://www.beispiel.de/kultur/maerchen.html"),
    ("http://www.beispiel.de/reise/rhein.html", "https://blog.exemple.fr/voyages/loire.html"),
    (
        "https://blog.exemple.fr/cuisine/fromages.html",
        "http://shop.example.com/es/productos/aceite-de-oliva.html",
    ),
    ("http://ru.example.net/kultura/chai.html", "http://shop.example.com/zh/products/longjing-tea.html"),
    ("http://jp.example.jp/gijutsu/shinkansen.html", "http://ru.example.net/istoriya/transsib.html"),
    (
        "http://shop.example.com/stories/coffee-harvest.html",
        "http://news.example.org/world/coffee-harvest.html",
    ),
    (
        "http://shop.example.com/ar/products/medjool-dates.html",
        "http://shop.example.com/products/cast-iron-teapot.html",
    ),
)

NEAR_DUPLICATES: tuple[tuple[str, str], ...] = (
    (
        "http://news.example.org/world/coffee-harvest.html",
        "http://shop.example.com/stories/coffee-harvest.html",
    ),
)

NOT_FOUND = (
    "Page not found",
    "Sorry, we could not find the page you asked for. It may have been moved or deleted. Try the home page, "
    "or use the links below to find our latest articles.",
)

# --- the TREC Web file: a university web server, captured in 1999 ---------------------------------

TREC_PAGES: tuple[TrecPage, ...] = (
    TrecPage(
        "/index.html",
        "en",
        "Example State University",
        (
            "Welcome to the World Wide Web server of Example State University. From here you can reach the "
            "pages of our departments, the university library and the student newspaper. These pages are "
            "maintained by the Computing Centre; please report broken links to the webmaster.",
        ),
    ),
    TrecPage(
        "/astronomy/open-nights.html",
        "en",
        "Observatory Open Nights",
        (
            "The campus observatory opens its doors to the public on the first Friday of every month, "
            "weather permitting. Visitors can look through the 40-centimetre reflecting telescope at the "
            "Moon, the planets and bright star clusters. Admission is free, but children under twelve must "
            "be accompanied by an adult.",
            "In the winter months warm clothing is strongly recommended, as the dome is not heated. If the "
            "sky is cloudy, a member of the department gives a short illustrated talk instead.",
        ),
    ),
    TrecPage(
        "/cs/ir-course.html",
        "en",
        "CS 473: Information Retrieval",
        (
            "This course introduces the principles of searching large collections of text. Topics include "
            "inverted indexes, Boolean and ranked retrieval, the vector space model, term weighting, and the "
            "evaluation of search systems with test collections. Students build a small search engine as a "
            "term project.",
            "Prerequisites: data structures and an introductory course in probability. Lectures are held on "
            "Tuesdays and Thursdays in room 214 of the Engineering Building.",
        ),
    ),
    TrecPage(
        "/library/hours.html",
        "en",
        "University Library: Opening Hours",
        (
            "During the academic year the main library is open from 8 a.m. to midnight, Monday to "
            "Thursday, and from 8 a.m. to 6 p.m. on Fridays. At weekends the reading rooms open at 10 "
            "a.m. Opening hours are reduced during the summer and the winter break.",
            "The library catalogue can now be searched from any terminal on campus. Books may be borrowed "
            "for four weeks and renewed twice, unless another reader has requested them.",
        ),
    ),
    TrecPage(
        "/history.html",
        "en",
        "A Short History of the University",
        (
            "The university was founded in 1887 as an agricultural college with forty students and three "
            "teachers. It received its present name in 1946, when returning veterans doubled the number of "
            "students within two years.",
            "Today the university has about twelve thousand students in six faculties. Its oldest building, "
            "the brick Main Hall, still houses the administration and a small museum of the college's early "
            "years.",
        ),
    ),
    TrecPage(
        "/garden/index.html",
        "en",
        "The Botanical Garden",
        (
            "The botanical garden covers four hectares on the south side of the campus. It holds more than "
            "three thousand species, including a collection of the prairie plants that once covered much of "
            "the region. The glasshouse is open daily from 9 a.m. to 4 p.m.",
        ),
    ),
    TrecPage(
        "/clubs/chess.html",
        "en",
        "Student Chess Club",
        (
            "The chess club meets every Wednesday evening at 7 p.m. in the Student Union, room B. Players of "
            "all strengths are welcome, and sets and clocks are provided. Every spring we hold an open "
            "tournament that attracts players from across the state.",
        ),
    ),
    TrecPage(
        "/geology/field-trip.html",
        "en",
        "Geology Field Trip 1999",
        (
            "This year's spring field trip visits the limestone quarries and caves of the northern hills. "
            "Students will map rock layers, collect fossils and learn how groundwater dissolves limestone to "
            "form caves. Sturdy boots, a hard hat and a notebook are required.",
            "The bus leaves the Science Building at 7 a.m. on Saturday, April 17, and returns the following "
            "evening. Please register with the department secretary by April 9.",
        ),
    ),
    TrecPage(
        "/fr/linguistique.html",
        "fr",
        "Département de linguistique",
        (
            "Le département de linguistique propose des cours de phonétique, de syntaxe, de sémantique et de "
            "linguistique historique. Nos étudiants participent chaque année à des enquêtes de terrain sur "
            "les parlers de la région.",
            "Le laboratoire de phonétique dispose d'une cabine insonorisée et d'ordinateurs pour l'analyse "
            "de la parole. Il est ouvert aux étudiants de maîtrise sur rendez-vous.",
        ),
    ),
    TrecPage(
        "/fr/litterature-medievale.html",
        "fr",
        "Cours : littérature médiévale",
        (
            "Ce cours présente les grandes oeuvres de la littérature française du Moyen Âge, de la "
            "Chanson de Roland aux romans de Chrétien de Troyes. Les textes sont lus en traduction "
            "moderne, avec quelques extraits en ancien français.",
            "L'évaluation comprend un exposé oral et un travail écrit d'une dizaine de pages.",
        ),
    ),
    TrecPage(
        "/fr/bibliotheque.html",
        "fr",
        "La bibliothèque universitaire",
        (
            "La bibliothèque universitaire est ouverte du lundi au samedi. Elle possède plus de deux cent "
            "mille ouvrages, dont une importante collection de livres anciens. Les étudiants peuvent "
            "emprunter jusqu'à cinq livres pendant trois semaines.",
        ),
    ),
    TrecPage(
        "/fr/echanges.html",
        "fr",
        "Programmes d'échange",
        (
            "Chaque année, une trentaine d'étudiants partent étudier un semestre dans une université "
            "partenaire en France, en Belgique, en Suisse ou au Québec. Les candidats doivent avoir suivi au "
            "moins deux années de cours de français.",
            "Les dossiers de candidature sont à déposer au bureau des relations internationales avant le 15 "
            "février.",
        ),
    ),
)

# --- the desktop folder ---------------------------------------------------------------------------

# name -> (language, text); the generator decides encodings and file types. An HTML file's first
# paragraph is its title.
FILE_TEXTS: dict[str, tuple[str, str]] = {
    "garden-club.html": (
        "en",
        "Riverside Garden Club: Spring Newsletter\n\n"
        "Spring has finally arrived at the allotments by the river. The first broad beans are up, the "
        "rhubarb is ready for pulling, and the blackbirds are nesting in the hedge behind plot twelve. Thank "
        "you to everyone who came to the winter work days and helped to rebuild the compost bays.\n\n"
        "Our seed swap takes place on the last Saturday of the month in the community hall, from ten until "
        "noon. Bring any spare seeds in labelled envelopes, and do not worry if you have none to give: there "
        "are always more seeds than gardeners. Tea and cake will be served by the committee.",
    ),
    "reading-group.txt": (
        "en",
        "Reading group notes, March\n\n"
        "We finished The Voyage of the Beagle this month. Most of us were surprised by how much of the book "
        "is about geology rather than animals. Darwin spends pages on the rise of the coast of Chile after "
        "the earthquake of 1835, and his descriptions are vivid enough to follow without a map.\n\n"
        "Next month we will read a collection of short stories. Please bring suggestions for the summer "
        "list to the next meeting, and remember that the library can order copies for the group if we ask "
        "two weeks in advance.\n",
    ),
    "brief.txt": (
        "de",
        "Liebe Anna,\n\nvielen Dank für deinen Brief und die Fotos vom Urlaub an der Ostsee. Das Wetter "
        "scheint ja herrlich gewesen zu sein, und die Kinder sehen auf jedem Bild glücklich aus. Bei uns "
        "hat es dagegen fast zwei Wochen lang geregnet, sodass der Garten jetzt aussieht wie ein "
        "Dschungel.\n\nNächsten Monat fahren wir für ein paar Tage nach Dresden. Wir möchten die "
        "Frauenkirche besichtigen und eine Dampferfahrt auf der Elbe machen. Falls du Zeit hast, könnten "
        "wir uns auf dem Rückweg in Leipzig treffen.\n\nHerzliche Grüße\nMartin\n",
    ),
    "lettre.txt": (
        "fr",
        "Chère Claire,\n\n"
        "Je t'écris depuis Lyon, où je passe quelques jours chez mon frère. Hier, nous sommes montés à pied "
        "sur la colline de Fourvière, et la vue sur la ville et ses deux fleuves était magnifique. Le soir, "
        "nous avons dîné dans un bouchon du Vieux-Lyon, un de ces petits restaurants où l'on sert la cuisine "
        "traditionnelle de la région.\n\n"
        "Je rentre à Paris dimanche. Veux-tu que nous allions au cinéma la semaine prochaine ?\n\n"
        "Je t'embrasse,\nJulien\n",
    ),
    "coast-path.md": (
        "en",
        "# Walking the coast path\n\n"
        "Three days on the coast path between the two lighthouses, in early June.\n\n"
        "## Day one\n\n"
        "The path climbs steeply out of the harbour and then follows the cliff top for most of the day. We "
        "watched grey seals on the rocks below the headland and ate our lunch in the shelter of a ruined "
        "chapel. The last few miles into the fishing village were hard on tired legs.\n\n"
        "## Day two\n\n"
        "Low tide was at eleven, so we crossed the estuary on the sand instead of walking round by the "
        "bridge. Check the [tide tables](http://news.example.org/science/tides.html) before you try it: the "
        "water comes back faster than a person can walk.\n\n"
        "## Packing list\n\n"
        "- waterproof jacket and spare socks\n"
        "- map, compass and a printed copy of the tide table\n"
        "- two litres of water per person\n",
    ),
    "todo.html": (
        "en",
        "Things to do before the trip\n\n"
        "- renew passport\n"
        "- book the night train to Vienna\n"
        "- ask the neighbours to water the tomatoes\n"
        "- buy a new map of the coast path\n",
    ),
    "archive/2023/receta.txt": (
        "es",
        "Tortilla de patatas (receta de la abuela)\n\nPelar y cortar en láminas finas cuatro patatas "
        "medianas y una cebolla. Freírlas a fuego lento en abundante aceite de oliva hasta que estén "
        "tiernas, sin que lleguen a dorarse. Escurrir bien el aceite.\n\nBatir seis huevos con una pizca "
        "de sal, añadir las patatas y la cebolla y dejar reposar unos minutos. Cuajar la mezcla en una "
        "sartén con un poco de aceite, darle la vuelta con ayuda de un plato y dejar que se haga por el "
        "otro lado. Se puede servir caliente o fría.\n",
    ),
}

CSV_ROWS: tuple[tuple[str, ...], ...] = (
    ("river", "length_km", "source", "mouth", "countries"),
    (
        "Rhine",
        "1230",
        "Swiss Alps",
        "North Sea",
        "Switzerland, Liechtenstein, Austria, Germany, France, Netherlands",
    ),
    ("Elbe", "1094", "Krkonoše mountains", "North Sea", "Czech Republic, Germany"),
    ("Loire", "1006", "Massif Central", "Atlantic Ocean", "France"),
    ("Danube", "2850", "Black Forest", "Black Sea", "ten countries from Germany to Ukraine"),
    ("Volga", "3530", "Valdai Hills", "Caspian Sea", "Russia"),
    ("Thames", "346", "Cotswold Hills", "North Sea", "England"),
)

PDF_TITLE = "Northbridge Harbour Tide Observations 2023"
PDF_LINES: tuple[str, ...] = (
    "Summary of the tide gauge readings taken at Northbridge harbour during 2023.",
    "The gauge recorded the water level every six minutes throughout the year.",
    "The highest spring tide reached 6.2 metres above chart datum on 30 September.",
    "The smallest neap range, 1.9 metres, was measured on 22 June.",
    "Storm surges raised the water above the predicted level on eleven days.",
    "Readings are published with the permission of the Northbridge Harbour Board.",
)

DOCX_TITLE = "Minutes of the garden club committee, 4 March 2024"
DOCX_PARAGRAPHS: tuple[str, ...] = (
    "Present: the chair, the treasurer, the secretary and four plot holders.",
    "The treasurer reported that the water bill for last year was lower than expected, because the new "
    "rain butts collected enough water for most of the summer.",
    "The seed swap will take place on the last Saturday of March. Volunteers are needed to set up tables "
    "and to bake cakes.",
    "Plot twelve has been offered to the next person on the waiting list. The committee thanked the "
    "previous tenant for thirty years of careful gardening.",
    "The next meeting will be held on the first Monday of April in the community hall.",
)

# --- the broken folder: good records around the bad ones ------------------------------------------

# (path on http://weather.example.org, title, text)
BROKEN_PAGES: tuple[tuple[str, str, str], ...] = (
    (
        "/log/monday.html",
        "Weather station log: Monday",
        "Clear skies in the morning, with a light westerly wind. Cloud built up after midday and a short "
        "shower passed through at about four o'clock. The maximum temperature was fourteen degrees.",
    ),
    (
        "/log/tuesday.html",
        "Weather station log: Tuesday",
        "A grey, still day with drizzle until noon. The barometer rose slowly through the afternoon, and the "
        "evening was dry and mild.",
    ),
    (
        "/log/wednesday.html",
        "Weather station log: Wednesday",
        "Frost at dawn, the first for two weeks. Bright sunshine followed, but the wind turned to the north "
        "and it felt colder than the thermometer suggested.",
    ),
    (
        "/log/thursday.html",
        "Weather station log: Thursday",
        "Heavy rain overnight filled the gauge to the brim. The stream behind the station burst its banks "
        "in two places, and the footpath to the village was closed until the afternoon.",
    ),
    (
        "/log/friday.html",
        "Weather station log: Friday",
        "Fog lay in the valley until mid-morning. It lifted slowly, and the afternoon was calm and warm for "
        "the season.",
    ),
    (
        "/log/saturday.html",
        "Weather station log: Saturday",
        "Strong gusts from the south-west brought down a few branches in the park. The rain gauge collected "
        "eleven millimetres, most of it in one heavy burst after lunch.",
    ),
    (
        "/log/sunday.html",
        "Weather station log: Sunday",
        "A quiet day with broken cloud and occasional sunshine. The week ended slightly warmer than it "
        "began.",
    ),
)

# (path on http://archive.example.edu, title, text) of the three documents in broken/garbage.trec
BROKEN_TREC: tuple[tuple[str, str, str], ...] = (
    (
        "/notices/lab.html",
        "Notice: computer lab closed",
        "The computer lab in the basement will be closed for maintenance on Saturday. Printing will be "
        "available in the library instead.",
    ),
    (
        "/notices/rooms.html",
        "Notice: room changes",
        "From next week the statistics seminar moves to room 105, and the German conversation class meets "
        "in the library seminar room.",
    ),
    (
        "/notices/lost.html",
        "Lost and found",
        "A blue umbrella and a set of keys were handed in at the porters' lodge. Please collect them before "
        "the end of term.",
    ),
)
