// The remote builders as a table: every field of Nix's machine format in a column of its own,
// edits read back as Nix's format reads them, and the text the table stands for kept word for
// word where a row is not a machine.

#include "itemmodels/buildertablemodel.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace rg;

class TestBuilderTableModel : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_key;

    QString field(const BuilderTableModel& model, int row, int column,
                  int role = Qt::DisplayRole) const
    {
        return model.index(row, column).data(role).toString();
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_key = m_dir.filePath(QStringLiteral("id_builder"));
        QFile key(m_key);
        QVERIFY(key.open(QIODevice::WriteOnly));
    }

    // Each field in its column; an include, a comment and a malformed machine each stay a row
    // of their own, as written, and the text comes back with them in place.
    void readsEveryEntryAndGivesTheTextBack()
    {
        BuilderTableModel model;
        const QString first =
            QStringLiteral("ssh://root@a x86_64-linux,aarch64-linux %1 4 2 big-parallel,kvm "
                           "benchmark c3NoLWVkMjU1MTkgQUFBQQ==")
                .arg(m_key);
        model.setText(first + QStringLiteral("\n@/etc/nix/machines ; ssh://b - - 1\n"
                                             "# the farm\nssh://c x86_64-linux - x\n"));
        QCOMPARE(model.rowCount(), 5);
        QCOMPARE(model.columnCount(), int(BuilderTableModel::ColumnCount));
        QCOMPARE(field(model, 0, BuilderTableModel::UriColumn), QStringLiteral("ssh://root@a"));
        QCOMPARE(field(model, 0, BuilderTableModel::SystemsColumn),
                 QStringLiteral("x86_64-linux, aarch64-linux"));
        QCOMPARE(field(model, 0, BuilderTableModel::KeyColumn), m_key);
        QCOMPARE(field(model, 0, BuilderTableModel::MaxJobsColumn), QStringLiteral("4"));
        QCOMPARE(field(model, 0, BuilderTableModel::SpeedColumn), QStringLiteral("2"));
        QCOMPARE(field(model, 0, BuilderTableModel::FeaturesColumn),
                 QStringLiteral("big-parallel, kvm"));
        QCOMPARE(field(model, 0, BuilderTableModel::MandatoryColumn), QStringLiteral("benchmark"));
        QCOMPARE(field(model, 0, BuilderTableModel::HostKeyColumn, Qt::EditRole),
                 QStringLiteral("c3NoLWVkMjU1MTkgQUFBQQ=="));
        // Defaults say what they stand for.
        QCOMPARE(field(model, 2, BuilderTableModel::SystemsColumn),
                 QStringLiteral("this machine's"));
        QCOMPARE(field(model, 2, BuilderTableModel::KeyColumn), QStringLiteral("ssh's own"));

        QCOMPARE(field(model, 1, BuilderTableModel::UriColumn),
                 QStringLiteral("@/etc/nix/machines"));
        QVERIFY(!(model.flags(model.index(1, 0)) & Qt::ItemIsEditable));
        QCOMPARE(field(model, 1, BuilderTableModel::UriColumn, BuilderTableModel::KindRole),
                 QStringLiteral("kept"));
        QCOMPARE(field(model, 4, BuilderTableModel::UriColumn, BuilderTableModel::KindRole),
                 QStringLiteral("problem"));
        QCOMPARE(field(model, 0, BuilderTableModel::UriColumn, BuilderTableModel::KindRole),
                 QString());
        QCOMPARE(field(model, 3, BuilderTableModel::UriColumn), QStringLiteral("# the farm"));
        QCOMPARE(field(model, 4, BuilderTableModel::UriColumn, Qt::ToolTipRole),
                 QStringLiteral("row 5 (c): max jobs 'x' is not a whole number"));
        QVERIFY(model.flags(model.index(0, 0)) & Qt::ItemIsEditable);
        QVERIFY(!model.allMachines());

        QCOMPARE(model.text(),
                 first + QStringLiteral("\n@/etc/nix/machines\nssh://b - - 1 1 - - -\n"
                                        "# the farm\nssh://c x86_64-linux - x"));
        model.removeRows(1, 4);
        QVERIFY(model.allMachines());
    }

    // A field edited in the table is read back as Nix would read the line: lists are
    // comma-separated whatever the user typed, and what Nix would refuse keeps the old value
    // and says why.
    void editsAFieldAsNixReadsIt()
    {
        BuilderTableModel model;
        model.setText(QStringLiteral("ssh://root@a x86_64-linux"));
        QSignalSpy rejected(&model, &BuilderTableModel::editRejected);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);

        QVERIFY(
            model.setData(model.index(0, BuilderTableModel::MaxJobsColumn), QStringLiteral("8")));
        QVERIFY(model.setData(model.index(0, BuilderTableModel::FeaturesColumn),
                              QStringLiteral(" big-parallel  kvm,benchmark ")));
        QVERIFY(model.setData(model.index(0, BuilderTableModel::KeyColumn), m_key));
        QCOMPARE(model.text(),
                 QStringLiteral("ssh://root@a x86_64-linux %1 8 1 big-parallel,kvm,benchmark - -")
                     .arg(m_key));
        QCOMPARE(changed.size(), 3);
        QVERIFY(rejected.isEmpty());

        const QString before = model.text();
        const auto refused = [&](int column, const QString& typed) {
            rejected.clear();
            const bool taken = model.setData(model.index(0, column), typed);
            return !taken && model.text() == before && rejected.size() == 1
                       ? rejected.first().first().toString()
                       : QStringLiteral("<taken>");
        };
        QCOMPARE(refused(BuilderTableModel::MaxJobsColumn, QStringLiteral("x")),
                 QStringLiteral("row 1 (root@a): max jobs 'x' is not a whole number"));
        QCOMPARE(refused(BuilderTableModel::SpeedColumn, QStringLiteral("0")),
                 QStringLiteral("row 1 (root@a): speed factor '0' is not a positive number"));
        QVERIFY(refused(BuilderTableModel::KeyColumn, m_key + QStringLiteral(".missing"))
                    .endsWith(QStringLiteral(".missing does not exist")));
        QVERIFY(refused(BuilderTableModel::HostKeyColumn, QStringLiteral("not base64!"))
                    .contains(QStringLiteral("no spaces")));
        QVERIFY(refused(BuilderTableModel::HostKeyColumn, QStringLiteral("not-base64"))
                    .contains(QStringLiteral("is not base64")));
        QCOMPARE(refused(BuilderTableModel::UriColumn, QString()),
                 QStringLiteral("row 1: the URI is empty"));
        QVERIFY(
            !model.setData(model.index(0, BuilderTableModel::HealthColumn), QStringLiteral("up")));
    }

    void addsAndRemovesMachines()
    {
        BuilderTableModel model;
        model.setText(QStringLiteral("ssh://a"));
        QCOMPARE(model.addMachine(), 1);
        QCOMPARE(field(model, 1, BuilderTableModel::UriColumn, Qt::EditRole),
                 QStringLiteral("ssh://"));
        QVERIFY(
            model.setData(model.index(1, BuilderTableModel::UriColumn), QStringLiteral("ssh://b")));
        QCOMPARE(model.text(), QStringLiteral("ssh://a - - 1 1 - - -\nssh://b - - 1 1 - - -"));
        QVERIFY(model.removeRows(0, 1));
        QCOMPARE(model.text(), QStringLiteral("ssh://b - - 1 1 - - -"));
        QVERIFY(!model.removeRows(1, 1));
    }

    // The Health column says what the last check found, matched by URI, and that a builder is
    // still being asked.
    void showsEachBuildersHealth()
    {
        BuilderTableModel model;
        model.setText(QStringLiteral("ssh://a\nssh://b\nssh://c\nssh://d"));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setHealth(
            {BuilderHealth{QStringLiteral("ssh://b"), QStringLiteral("b"), false,
                           QStringLiteral("cannot connect to 'b'"), -1, true},
             BuilderHealth{QStringLiteral("ssh://a"), QStringLiteral("a"), true, {}, 12, true},
             BuilderHealth{QStringLiteral("ssh://d"), QStringLiteral("d"), false, {}, -1, false}});
        QCOMPARE(changed.size(), 1);
        QCOMPARE(field(model, 0, BuilderTableModel::HealthColumn),
                 QStringLiteral("\u2713 up, 12 ms"));
        QCOMPARE(field(model, 1, BuilderTableModel::HealthColumn), QStringLiteral("\u2717 down"));
        QCOMPARE(field(model, 1, BuilderTableModel::HealthColumn, Qt::ToolTipRole),
                 QStringLiteral("cannot connect to 'b'"));
        QCOMPARE(field(model, 1, BuilderTableModel::HealthColumn, BuilderTableModel::KindRole),
                 QStringLiteral("down"));
        QCOMPARE(field(model, 0, BuilderTableModel::HealthColumn, BuilderTableModel::KindRole),
                 QStringLiteral("up"));
        QCOMPARE(field(model, 2, BuilderTableModel::HealthColumn), QString());
        QCOMPARE(field(model, 3, BuilderTableModel::HealthColumn), QStringLiteral("asking\u2026"));
        QCOMPARE(field(model, 3, BuilderTableModel::HealthColumn, BuilderTableModel::KindRole),
                 QStringLiteral("asking"));
        QVERIFY(
            !(model.flags(model.index(0, BuilderTableModel::HealthColumn)) & Qt::ItemIsEditable));
    }
};

QTEST_GUILESS_MAIN(TestBuilderTableModel)
#include "tst_buildertablemodel.moc"
