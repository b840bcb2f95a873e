#pragma once

// The remote builders as a table, one field of Nix's machine format per column, for editing
// field by field: URI, systems, SSH key, max jobs, speed factor, supported and mandatory
// features, public host key, and the health a connection check last found. It reads and writes
// the `builders` text itself, so the table and the text are two views of one value: an entry
// the table cannot show as fields (an "@FILE" include, a comment, a malformed machine) is kept
// as a row of its own, word for word, and can only be edited as text.

#include "builds/buildercheck.h"
#include "builds/buildermachine.h"

#include <QAbstractTableModel>
#include <optional>

namespace rg {

class BuilderTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        UriColumn,
        SystemsColumn,
        KeyColumn,
        MaxJobsColumn,
        SpeedColumn,
        FeaturesColumn,
        MandatoryColumn,
        HostKeyColumn,
        HealthColumn,
        ColumnCount
    };

    // What a cell is, for the view to style: "kept" (an entry kept as written), "problem" (a
    // machine Nix would not read), "up" or "down" (Health); empty otherwise.
    static constexpr int KindRole = Qt::UserRole + 1;

    explicit BuilderTableModel(QObject* parent = nullptr);

    // The `builders` value: one entry per line, or ';'-separated.
    void setText(const QString& builders);
    // One line per row: a machine as toLine() writes it, any other entry as it was written.
    QString text() const;
    // Whether every row is a machine, so that nothing is kept only as text.
    bool allMachines() const;

    // Appends a machine to fill in ("ssh://", this machine's defaults); returns its row.
    int addMachine();
    // Matched by URI; a machine without an answer shows none.
    void setHealth(const QList<BuilderHealth>& health);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    bool removeRows(int row, int count, const QModelIndex& parent = {}) override;

signals:
    // An edit Nix's machine format would not take, and why; the field keeps its value.
    void editRejected(const QString& why);

private:
    struct Row
    {
        std::optional<BuilderMachine> machine;
        QString verbatim; // the entry as written, when it is not a machine
        QString problem;  // why a machine entry could not be read
    };

    QVariant machineData(const BuilderMachine& m, int column, int role) const;
    QVariant verbatimData(const Row& row, int column, int role) const;
    QVariant healthData(const BuilderMachine& m, int role) const;

    QList<Row> m_rows;
    QList<BuilderHealth> m_health;
};

} // namespace rg
