#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (Fuzz/Corpus/<target>/) and Fixtures/Archived/Templates.mom.

Every seed is made here from the project's own content (Fixtures/, docutil's own output) or built from the keyed
archive layout documented in Sources/ModelFiles/KeyedArchive/ArchivedPredicate.swift; no Apple file is copied.
Run from the repository root after `swift build`: python3 Fuzz/make-seeds.py
"""
import os, plistlib, subprocess, zlib, shutil, struct, tempfile
from plistlib import UID

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Fuzz", "Corpus")
DOCUTIL = os.path.join(ROOT, ".build", "debug", "docutil")


def write(target, name, data):
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


class Archive:
    """An NSKeyedArchiver object table."""

    def __init__(self):
        self.objects = ["$null"]
        self.classes = {}

    def add(self, value):
        self.objects.append(value)
        return UID(len(self.objects) - 1)

    def cls(self, name, parents=("NSObject",)):
        if name not in self.classes:
            self.classes[name] = self.add({"$classname": name, "$classes": [name, *parents]})
        return self.classes[name]

    def obj(self, classname, **fields):
        fields["$class"] = self.cls(classname)
        return self.add(fields)

    def string(self, s):
        return self.add(s)

    def array(self, items, classname="NSArray"):
        return self.obj(classname, **{"NS.objects": list(items)})

    def dictionary(self, pairs, classname="NSDictionary"):
        return self.obj(classname, **{"NS.keys": [k for k, _ in pairs], "NS.objects": [v for _, v in pairs]})

    def data(self, root):
        return plistlib.dumps(
            {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": root}, "$objects": self.objects},
            fmt=plistlib.FMT_BINARY)

    # Expressions and predicates, as Core Data archives them.
    def self_expression(self):
        return self.obj("NSSelfExpression", NSExpressionType=1)

    def key_path(self, path):
        spec = self.obj("NSKeyPathSpecifierExpression", NSExpressionType=10, NSKeyPath=self.string(path))
        return self.obj("NSKeyPathExpression", NSExpressionType=3, NSOperand=self.self_expression(),
                        NSSelectorName=self.string("valueForKey:"), NSArguments=self.array([spec], "NSMutableArray"))

    def variable_path(self, variable, path):
        spec = self.obj("NSKeyPathSpecifierExpression", NSExpressionType=10, NSKeyPath=self.string(path))
        var = self.obj("NSVariableExpression", NSExpressionType=2, NSVariable=self.string(variable))
        return self.obj("NSKeyPathExpression", NSExpressionType=4, NSOperand=var,
                        NSSelectorName=self.string("valueForKeyPath:"), NSArguments=self.array([spec], "NSMutableArray"))

    def variable(self, name):
        return self.obj("NSVariableExpression", NSExpressionType=2, NSVariable=self.string(name))

    def constant(self, value):
        if isinstance(value, list):
            stored = self.array([self.add(item) for item in value])
        else:
            stored = self.add(value)
        return self.obj("NSConstantValueExpression", NSExpressionType=0, NSConstantValue=stored)

    def comparison(self, left, operator_type, right, modifier=0, options=0, cls="NSComparisonPredicateOperator"):
        op = self.obj(cls, NSOperatorType=operator_type, NSModifier=modifier, NSOptions=options)
        return self.obj("NSComparisonPredicate", NSLeftExpression=left, NSRightExpression=right, NSPredicateOperator=op)

    def compound(self, kind, parts):
        return self.obj("NSCompoundPredicate", NSCompoundPredicateType=kind, NSSubpredicates=self.array(parts))


def templates_model():
    """A compiled model: Book(title, pages, rating) with fetch request templates whose predicates are archived."""
    a = Archive()
    model = a.obj("NSManagedObjectModel")
    book = a.obj("NSEntityDescription")
    model_fields = a.objects[model.data]
    book_fields = a.objects[book.data]
    props = []
    for name, code in [("title", 700), ("pages", 200), ("rating", 500)]:
        props.append((a.string(name), a.obj("NSAttributeDescription", NSPropertyName=a.string(name),
                                             NSAttributeType=code, NSIsOptional=True, NSEntity=book)))
    book_fields.update({"NSEntityName": a.string("Book"), "NSClassNameForEntity": a.string("NSManagedObject"),
                        "NSProperties": a.dictionary(props)})
    long_books = a.comparison(a.key_path("pages"), 2, a.variable("MIN"))
    titled = a.compound(1, [
        a.comparison(a.key_path("title"), 8, a.constant("The"), options=1),
        a.comparison(a.key_path("rating"), 3, a.constant(4.0)),
    ])
    contains = a.comparison(a.key_path("title"), 99, a.constant("sea"), options=3, cls="NSInPredicateOperator")
    either = a.compound(2, [a.compound(0, [a.comparison(a.key_path("pages"), 0, a.constant(300))]),
                            a.comparison(a.key_path("title"), 10, a.constant(["The Road", "Zorba"]))])
    # A kind of expression docutil does not decode (a block): using this template must be an error.
    block = a.comparison(a.obj("NSBlockExpression", NSExpressionType=19), 4, a.constant(1))
    templates = []
    for name, predicate in [("LongBooks", long_books), ("WellRatedThe", titled), ("AboutTheSea", contains),
                            ("ShortOrListed", either), ("Undecodable", block)]:
        request = a.obj("NSFetchRequest", NSEntity=book, NSPredicate=predicate, NSFetchLimit=0, NSBatchSize=0,
                        NSResultType=0)
        templates.append((a.string(name), request))
    model_fields.update({"NSEntities": a.dictionary([(a.string("Book"), book)]),
                         "NSFetchRequestTemplates": a.dictionary(templates),
                         "NSVersionIdentifiers": a.array([a.string("1")], "NSSet")})
    return a.data(model)


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    os.makedirs(CORPUS)
    mom = templates_model()
    os.makedirs(os.path.join(ROOT, "Fixtures", "Archived"), exist_ok=True)
    with open(os.path.join(ROOT, "Fixtures", "Archived", "Templates.mom"), "wb") as f:
        f.write(mom)

    predicates = [
        "age > 30", "name BEGINSWITH[cd] 'a' AND NOT (age < 18 OR age == nil)", "ANY tags.label IN {'x', 'y'}",
        "SUBQUERY(items, $i, $i.n > 1).@count == 1", "items.@sum.n BETWEEN {1, 3}", "name MATCHES '[A-Z].*'",
        "when > CAST('2001-01-01T00:00:00Z', 'NSDate')", "ratio * 2 + 1 ** 2 >= -3", "TERNARY(age > 1, 'a', 'b') == 'a'",
        "name LIKE[c] 'a?n*'", "$x == 1 AND $s CONTAINS 'q'", "items[FIRST].n == 1 AND items[SIZE] == 2",
        "ALL items.n > 0", "NONE tags == 'z'", "{1, 2} UNION {3} CONTAINS 3", "lowercase(name) == 'ann'",
        "modulus:by:(age, 5) == 2", "FUNCTION(name, 'length') == 3", "-9223372036854775808 < age", "TRUEPREDICATE",
        "SUBQUERY(items, $a, SUBQUERY(items, $b, $b.n == $a.n).@count > 0).@count == 2",
    ]
    for i, p in enumerate(predicates):
        write("fuzz-predicate", f"seed-{i:02d}", p)

    for i, data in enumerate([mom, templates_model()[:-40] + mom[-40:]]):
        write("fuzz-keyed-archive", f"seed-{i}", data)
        raw = zlib.compressobj(9, zlib.DEFLATED, -15)
        write("fuzz-model-cache", f"seed-{i}", raw.compress(data) + raw.flush())
    write("fuzz-property-list", "xml", plistlib.dumps({"a": [1, 2.5, True, "x", b"\x00\x01"], "b": {"c": None or 0}}))
    write("fuzz-property-list", "binary", plistlib.dumps({"a": [1, 2.5, True, "x", b"\x00"], "u": UID(3)},
                                                         fmt=plistlib.FMT_BINARY))
    write("fuzz-property-list", "archive", mom)

    with open(os.path.join(ROOT, "Fixtures", "Library.xcdatamodeld", "Library.xcdatamodel", "contents"), "rb") as f:
        write("fuzz-xcode-model", "library", f.read())
    for name in os.listdir(os.path.join(ROOT, "Fixtures", "Malformed")):
        if name.endswith(".contents"):
            with open(os.path.join(ROOT, "Fixtures", "Malformed", name), "rb") as f:
                write("fuzz-xcode-model", name, f.read())

    with open(os.path.join(ROOT, "Fixtures", "Library.xml"), "rb") as f:
        library = f.read()
    write("fuzz-xml-store", "library", library)
    write("fuzz-xml-store", "small",
          '<?xml version="1.0"?>\n<database><databaseInfo><version>134481920</version><UUID>A</UUID>'
          '<nextObjectID>103</nextObjectID></databaseInfo><object type="ITEM" id="z102"><attribute name="name" '
          'type="string">a</attribute><attribute name="where.x" type="double">1</attribute><relationship '
          'name="owner" type="1/1" destination="OWNER" idrefs="z103"></relationship></object><object type="OWNER" '
          'id="z103"><attribute name="name" type="string">o</attribute></object></database>\n')

    with tempfile.TemporaryDirectory() as scratch:
        out = os.path.join(scratch, "library.binary")
        subprocess.run([DOCUTIL, "convert", os.path.join(ROOT, "Fixtures", "Library.xml"), out], check=True)
        with open(out, "rb") as f:
            data = f.read()
        flags = struct.unpack("<H", data[10:12])[0]
        body = data[16:-28]
        plain, _ = struct.unpack("<QQ", data[-28:-12])
        if flags & 1:
            body = zlib.decompress(body)
        assert len(body) == plain
        write("fuzz-binary-store", "library", body)
        # The same body compressed: "Z", the recorded plain length, the zlib stream (see the target).
        write("fuzz-binary-store", "library-compressed", b"Z" + struct.pack("<Q", len(body)) + zlib.compress(body))

    # seed-0: one byte, read as an operation with no operands: the template store unchanged (an empty seed would
    # be a byte-for-byte copy of every empty file).
    for i, seed in enumerate([b"\x00", bytes(range(64)), b"\x01\x02\x03\x04" * 16, b"\x02\x00\x01\x07" * 8]):
        write("fuzz-sqlite-store", f"seed-{i}", seed)


if __name__ == "__main__":
    main()
