#pragma once

// The findings of the recipes in view (the selected cells, or the whole repository) as a
// table: severity, location, rule, message. Filtering is a QSortFilterProxyModel's job.

#include "analysis/finding.h"

#include <QAbstractTableModel>
#include <vector>

namespace rg {

class FindingsModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { SeverityColumn, LocationColumn, RuleColumn, MessageColumn, ColumnCount };
    enum Role {
        SeverityRole = Qt::UserRole + 1, // int (rg::Severity)
        FileRole,                        // QString, relative path; "" for repository-level
        LineRole,                        // int, 1-based; 0 when the finding has no position
        ColumnRole,                      // int
        RangeBeginRole,                  // int, byte offset into the file
        RangeEndRole,                    // int
        RuleRole,                        // QString
        FixRole,                         // QString fix kind id
    };

    explicit FindingsModel(QObject* parent = nullptr);

    void setFindings(std::vector<Finding> findings);
    const std::vector<Finding>& findings() const { return m_findings; }
    const Finding* finding(const QModelIndex& index) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<Finding> m_findings;
};

} // namespace rg
